// Parameter presets, their sources and the noise model (README.md explains each number).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "internal.hpp"

namespace tempo::tfhe {

namespace {

// OpenFHE STD128 (binfhecontext.cpp, v1.1 and later, GINX): n = 556, N = 1024, q = 2048,
// log2 Q = 27, Q_ks = 2^15, B_ks = 32, B_g = 2^7, sigma = 3.19, uniform ternary secrets;
// OpenFHE states >= 128 bits classical security (lattice estimator). The ring side also sits
// at the Homomorphic Encryption Standard's 128-bit bound for N = 1024, ternary secret (27 bits).
constexpr Params kPN10QP27{
    .name = "PN10QP27", .id = 1, .N = 1024, .Q = 134215681, .log_bg = 7, .levels = 4,
    .n = 556, .log_q = 11, .log_qks = 15, .log_bks = 5, .ks_levels = 3, .eta = 21,
    .secure = true,
    .source = "OpenFHE STD128 (GINX; n=556, N=1024, q=2048, logQ=27, Qks=2^15, Bks=32, Bg=2^7, "
              "sigma=3.19) + HE Standard 2018 Table (N=1024, ternary, logQ<=27): 128-bit classical"};

// PN10QP27 with three digits of 7 bits over the top 21 bits of each coefficient (the low 6
// rounded off: an approximate gadget decomposition, as in TFHE's own parameter sets): 6
// forward transforms and 6 key rows per CMUX key instead of 8. The dimensions, moduli and
// error distributions are PN10QP27's, so is the security (the gadget is not part of the
// LWE/RLWE instances); the rounding adds an error term to the noise model below, which
// predicts a smaller output noise than PN10QP27's (fewer digits, each key error summed over
// fewer rows).
constexpr Params kPN10QP27L3 = [] {
  Params p = kPN10QP27;
  p.name = "PN10QP27L3";
  p.id = 4;
  p.levels = 3;
  p.source = "PN10QP27's dimensions, moduli and errors (OpenFHE STD128 GINX + HE Standard 2018, N=1024, "
             "ternary, logQ<=27: 128-bit classical); gadget Bg=2^7, 3 digits, low 6 bits rounded";
  return p;
}();

// PN10QP27L3 with multi-bit blind rotation, grouping factor 2 (key unrolling: Bourse, Minelli,
// Minihold and Paillier, CRYPTO 2018; TFHE-rs's multi-bit bootstrap; here for ternary keys): one step per pair of LWE
// coefficients, with an RGSW key for each of the 8 nonzero patterns (s_2k, s_2k+1) in
// {-1,0,1}^2, so 278 external products per bootstrap instead of 556. The LWE and RLWE
// instances are PN10QP27's (the keys encrypt functions of s under the same ring key, as the
// two keys per coefficient do), so is the security; the noise model counts 8 keys' errors
// per step (twice the keys' error terms: 1.7 times the blind rotation's variance),
// predicting a higher failure rate than PN10QP27L3's (noise()).
constexpr Params kPN10QP27L3G2 = [] {
  Params p = kPN10QP27L3;
  p.name = "PN10QP27L3G2";
  p.id = 5;
  p.grouping = 2;
  p.source = "PN10QP27L3's dimensions, moduli, errors and gadget (OpenFHE STD128 GINX + HE Standard 2018, "
             "N=1024, ternary, logQ<=27: 128-bit classical); multi-bit blind rotation, 2 coefficients per step";
  return p;
}();

// Ring: Homomorphic Encryption Standard (Albrecht et al. 2018), N = 2048, ternary secret,
// sigma = 3.2, log2 Q <= 54 for 128-bit classical security. LWE side (n, Q_ks, sigma, key
// switch) exactly as OpenFHE STD128 above, whose security it inherits.
constexpr Params kPN11QP54{
    .name = "PN11QP54", .id = 2, .N = 2048, .Q = 18014398509404161ULL, .log_bg = 11, .levels = 5,
    .n = 556, .log_q = 11, .log_qks = 15, .log_bks = 5, .ks_levels = 3, .eta = 21,
    .secure = true,
    .source = "HE Standard 2018 Table (N=2048, ternary, sigma=3.2, logQ<=54): 128-bit classical; "
              "LWE side (n=556, Qks=2^15, Bks=32) from OpenFHE STD128"};

// For tests only: small enough for sanitizer runs. No security claim.
constexpr Params kTOY256{
    .name = "TOY256", .id = 3, .N = 256, .Q = 134215681, .log_bg = 7, .levels = 4,
    .n = 64, .log_q = 9, .log_qks = 15, .log_bks = 5, .ks_levels = 3, .eta = 21,
    .secure = false, .source = "none: INSECURE toy set for tests (n=64, N=256)"};

// TOY256 with PN10QP27L3G2's grouping, for tests only. No security claim.
constexpr Params kTOY256G2 = [] {
  Params p = kTOY256;
  p.name = "TOY256G2";
  p.id = 6;
  p.grouping = 2;
  p.source = "none: INSECURE toy set for tests (n=64, N=256, multi-bit blind rotation)";
  return p;
}();

constexpr std::string_view kNames[] = {"PN10QP27", "PN10QP27L3", "PN10QP27L3G2", "PN11QP54", "TOY256", "TOY256G2"};

}  // namespace

Params Params::preset(std::string_view name) {
  if (name == "PN10QP27") return kPN10QP27;
  if (name == "PN10QP27L3") return kPN10QP27L3;
  if (name == "PN11QP54") return kPN11QP54;
  if (name == "PN10QP27L3G2") return kPN10QP27L3G2;
  if (name == "TOY256") return kTOY256;
  if (name == "TOY256G2") return kTOY256G2;
  throw std::invalid_argument("tempo::tfhe::Params::preset: unknown parameter set '" + std::string(name) +
                              "' (expected PN10QP27, PN10QP27L3, PN10QP27L3G2, PN11QP54, TOY256 or TOY256G2)");
}

std::span<const std::string_view> Params::preset_names() noexcept { return kNames; }

namespace detail {
const Params* params_by_id(std::uint8_t id) noexcept {
  switch (id) {
    case 1: return &kPN10QP27;
    case 2: return &kPN11QP54;
    case 3: return &kTOY256;
    case 4: return &kPN10QP27L3;
    case 5: return &kPN10QP27L3G2;
    case 6: return &kTOY256G2;
    default: return nullptr;
  }
}
}  // namespace detail

// Variances, all for independent centered terms (README "Noise"):
//  blind rotation: per step (grouping LWE coefficients, not all of whose a_i are 0),
//    patterns() keys (2 for one coefficient: s_i = 1, s_i = -1), each error term
//    (X^e - 1) * sum_k d_k e_k with 2L digit polynomials of variance B_g^2/12 and N terms each;
//    with dropped bits, also (X^e - 1) * (r_b - <r_a, S>) for the key that encrypts 1 (at most
//    one per step; counted twice, as a bound), r the rounding error of a
//    coefficient: uniform over 2^drop values, plus B_g^L 2^drop (mod Q, centered) where the
//    rounded coefficient lies beyond the digits' range (a carry the L digits cannot hold);
//  modulus switch Q -> Q_ks: scaled error plus rounding (1 + N E[S^2]) / 12, E[S^2] = 2/3;
//  key switch: N * ks_levels table entries, each a fresh error of variance eta/2;
//  modulus switch Q_ks -> q: scaled error plus rounding (1 + n E[s^2]) / 12.
NoiseEstimate Params::noise() const {
  NoiseEstimate r{};
  const double sigma2 = eta / 2.0;
  const double bg = std::ldexp(1.0, static_cast<int>(log_bg));
  const double vd = bg * bg / 12.0;
  const double per_iter = patterns() * 2.0 * 2.0 * levels * static_cast<double>(N) * vd * sigma2;
  double rounding_per_iter = 0;
  if (const unsigned drop = dropped_bits(); drop > 0) {
    const double step = std::ldexp(1.0, static_cast<int>(drop)), q_d = static_cast<double>(Q);
    // Largest |rounded coefficient| the balanced digits hold: (B_g/2 - 1) (B_g^L - 1)/(B_g - 1).
    const double reach = (bg / 2.0 - 1.0) * (std::pow(bg, levels) - 1.0) / (bg - 1.0);
    const double carry_share = std::max(0.0, 1.0 - 2.0 * reach * step / q_d);
    double carry = std::fmod(std::pow(bg, levels) * step, q_d);
    if (carry > q_d / 2) carry -= q_d;
    const double var_r = step * step / 12.0 + carry_share * carry * carry;
    rounding_per_iter = 2.0 * 2.0 * (1.0 + static_cast<double>(N) * 2.0 / 3.0) * var_r;
  }
  r.blind_rotation_var_Q = static_cast<double>(steps()) * (per_iter + rounding_per_iter);
  const double to_ks = std::ldexp(1.0, static_cast<int>(log_qks)) / static_cast<double>(Q);
  const double v1 = r.blind_rotation_var_Q * to_ks * to_ks + (1.0 + static_cast<double>(N) * 2.0 / 3.0) / 12.0;
  r.ks_var = static_cast<double>(N) * ks_levels * sigma2;
  const double to_q = std::ldexp(1.0, static_cast<int>(log_q) - static_cast<int>(log_qks));
  r.output_var = (v1 + r.ks_var) * to_q * to_q + (1.0 + static_cast<double>(n) * 2.0 / 3.0) / 12.0;
  r.fresh_var = sigma2;
  // Noisiest gate: carry (weights 2,1,1 -> 6 variances) with margin q/8; parity3 (2,2,2 ->
  // 12 variances, margin q/4) and xor (8, q/4) are milder.
  const double margin = std::ldexp(1.0, static_cast<int>(log_q) - 3);
  r.worst_margin_sigmas = margin / std::sqrt(6.0 * r.output_var);
  r.failure_per_gate = std::erfc(r.worst_margin_sigmas / std::sqrt(2.0));
  return r;
}

}  // namespace tempo::tfhe
