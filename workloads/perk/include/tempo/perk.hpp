// PERK v2.1.0 signatures (VOLE-in-the-head over the permuted kernel problem, NIST PQC
// additional signatures round 2, package of 23/09/2025), byte-identical to the PERK team's
// package: the same keys from the same randomness, the same signatures, the NIST known answers
// of all 18 parameter sets.
//
//   auto kp  = tempo::perk::keygen(Params::perk_1_fast_aes_aes);                  // OS randomness
//   auto sig = tempo::perk::sign(Params::perk_1_fast_aes_aes, kp.secret_key, msg);   // rand from the OS
//   bool ok  = tempo::perk::verify(Params::perk_1_fast_aes_aes, kp.public_key, msg, sig);
//
// Sets: perk_<level>_<mode>_<sym>, level 1/3/5 (lambda = 128/192/256 bits), mode fast or short
// (larger or smaller signatures), sym the symmetric primitives: aes_aes (AES for the seed
// expansion and the leaf commitments: AES-128 at level 1, Rijndael-256 at levels 3 and 5),
// aes_keccak (AES expansion, SHA3 commitments) or keccak_keccak (SHA3/SHAKE for both).
// Keys: public = H_seed (lambda/8 B) || x (n 11-bit values, packed); secret = perm_seed
// (lambda/8 B) || public key. Sizes: public_key_size / secret_key_size / signature_size.
//
// Wrong key or signature lengths throw std::invalid_argument; verify returns false for a
// well-formed signature (or a public key with nonzero padding bits) that does not verify.
// Every call is thread-safe.
//
// SECURITY: as the v2.1.0 package does (and its known answers require), signing proves the
// permuted-kernel relation for the zero permutation and the zero matrix instead of the key's,
// so verify accepts signatures made without the secret key. This is an interoperability
// implementation of v2.1.0, not a secure signature: see workloads/perk/README.md, "Security".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace tempo::perk {

enum class Params {
  perk_1_fast_aes_aes,
  perk_1_fast_aes_keccak,
  perk_1_fast_keccak_keccak,
  perk_1_short_aes_aes,
  perk_1_short_aes_keccak,
  perk_1_short_keccak_keccak,
  perk_3_fast_aes_aes,
  perk_3_fast_aes_keccak,
  perk_3_fast_keccak_keccak,
  perk_3_short_aes_aes,
  perk_3_short_aes_keccak,
  perk_3_short_keccak_keccak,
  perk_5_fast_aes_aes,
  perk_5_fast_aes_keccak,
  perk_5_fast_keccak_keccak,
  perk_5_short_aes_aes,
  perk_5_short_aes_keccak,
  perk_5_short_keccak_keccak,
};

// All 18 sets, in the enum's order.
std::span<const Params> all_params();

struct KeyPair {
  std::vector<std::uint8_t> public_key;
  std::vector<std::uint8_t> secret_key;
  ~KeyPair();  // wipes secret_key
};

std::size_t public_key_size(Params p);   // 104 / 151 / 195 bytes (levels 1 / 3 / 5)
std::size_t secret_key_size(Params p);   // 120 / 175 / 227
std::size_t signature_size(Params p);    // fast 4312 / 10423 / 18216, short 3473 / 8311 / 14830
// The randomness keygen and sign draw: 3 * lambda/8 bytes (H_seed, perm_seed, kernel seed)
// and 2 * lambda/8 bytes (rand).
std::size_t keygen_seed_size(Params p);
std::size_t sign_randomness_size(Params p);
// "perk-1-fast-aes_aes", ... (the names of the package's KAT files).
const char* name(Params p);
// "perk-1-fast-aes_aes", "perk_1_fast_aes_aes", "PERK-1-FAST-AES-AES", "1-fast-aes_aes", ...
// (case, '-' and '_' do not matter). std::invalid_argument naming the name and the sets otherwise.
Params parse_params(std::string_view name);

// Fills its argument with random bytes (keygen's and sign's randomness source).
using RandomSource = std::function<void(std::span<std::uint8_t>)>;

// ---- keys -----------------------------------------------------------------------------------
// Key generation as the package does it: three draws of lambda/8 bytes (H_seed, perm_seed,
// the kernel seed), in that order (with the NIST harness's DRBG: its three randombytes calls).
KeyPair keygen(Params p);                              // tempo::os_random (<tempo/os_random.hpp>)
KeyPair keygen(Params p, const RandomSource& random);
// The same from the three draws given at once: seed = H_seed || perm_seed || kernel seed,
// keygen_seed_size(p) bytes (std::invalid_argument otherwise).
KeyPair keygen_deterministic(Params p, std::span<const std::uint8_t> seed);

// ---- signing --------------------------------------------------------------------------------
// sign draws rand, the signing randomness (2 * lambda/8 bytes, as the package), from tempo::os_random.
std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg);
// Writes exactly signature_size(p) bytes.
void sign_into(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
               std::span<std::uint8_t> signature_out);

// The same with the caller's rand (any length; the package and its KATs use
// sign_randomness_size(p) bytes): for tests and known answers. The tree seed and salt are a
// hash of the key seed, the message digest and rand, so a repeated rand makes signing
// deterministic: production code signs with sign().
std::vector<std::uint8_t> sign_deterministic(Params p, std::span<const std::uint8_t> secret_key,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rand);
void sign_into_deterministic(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
                             std::span<const std::uint8_t> rand, std::span<std::uint8_t> signature_out);

bool verify(Params p, std::span<const std::uint8_t> public_key, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> signature);

// The CPU code that runs the AES (levels 1-5 of the aes_* sets) and the carry-less products:
// "aesni+pclmul" or "portable" (constant-time, no tables), the fastest this CPU has.
// TEMPO_PERK_ISA=portable|aesni (case-insensitive) caps the choice, e.g. to test the portable
// code on an AES-NI machine; any other value is a std::invalid_argument (from this and from
// every keygen, signing and verifying call).
const char* cpu_isa_name();

}  // namespace tempo::perk
