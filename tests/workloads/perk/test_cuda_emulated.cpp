// The GPU batch path without a GPU: the kernels' per-thread code (AES-128 and Rijndael-256
// on bit planes, the device sponge, the whole device stage in the kernels' order, with AES or
// Keccak as each set says) against the CPU kernels and the CPU stage, and signatures made
// through it byte-identical to the CPU path and the NIST known answers of all 18 sets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/perk.hpp>
#include <tempo/tempo.hpp>

#include "cuda/perk_device.hpp"
#include "gpu_path.hpp"
#include "kat.hpp"
#include "kernels.hpp"
#include "scheme.hpp"
#include "sponge.hpp"

using tempo::perk::Params;
namespace d = tempo::perk::detail;
namespace dev = tempo::perk::dev;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes random_bytes(std::mt19937_64& rng, std::size_t n) {
  Bytes v(n);
  for (auto& b : v) b = std::uint8_t(rng());
  return v;
}

bool quick() { return perk_test::env_flag("TEMPO_PERK_QUICK"); }

const Params fast_sets[] = {Params::perk_1_fast_aes_aes, Params::perk_3_fast_aes_aes, Params::perk_5_fast_aes_aes};
// The fast sets of every PRG / commitment choice (AES, AES + SHA3 commitments, Keccak), level 1 first.
const Params fast_all[] = {Params::perk_1_fast_aes_aes, Params::perk_1_fast_aes_keccak,
                           Params::perk_1_fast_keccak_keccak, Params::perk_3_fast_aes_aes,
                           Params::perk_3_fast_aes_keccak, Params::perk_3_fast_keccak_keccak,
                           Params::perk_5_fast_aes_aes, Params::perk_5_fast_aes_keccak,
                           Params::perk_5_fast_keccak_keccak};
bool level1(Params p) { return d::param_set(p).level == 1; }

// The device stage run on the host: the kernels' per-thread code over the kernels' launches
// in their order, one thread after another (a launch's threads write disjoint outputs, so
// any order within a launch is the kernel's result; `reverse` runs them backwards).
// Poisoned scratch: a stage that read what no earlier stage wrote would show.
void emulate_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count,
                   bool reverse = false) {
  Bytes nodes(count * lay.nodes_bytes(), 0xA5), com(count * lay.com_bytes(), 0xA5),
      rows(count * lay.rows_bytes(), 0xA5), hq(count * lay.hq_bytes(), 0xA5), st(count * lay.st_bytes(), 0xA5);
  const dev::Args a{lay, count, in, out, nodes.data(), com.data(), rows.data(), hq.data(), st.data()};
  dev::for_each_stage(lay, [&](const dev::Launch& l) {
    const std::uint64_t n = count * l.per_sig;
    for (std::uint64_t q = 0; q < n; ++q) dev::run_thread(a, l, reverse ? n - 1 - q : q);
  });
}

// Signs through prepare -> emulated device stage -> complete.
std::vector<Bytes> sign_emulated(Params p, const std::vector<Bytes>& sks, const std::vector<Bytes>& msgs,
                                 const std::vector<Bytes>& rands) {
  const std::size_t n = sks.size();
  const dev::Layout lay = d::gpu_layout_of(p);
  Bytes in(n * lay.in_stride()), out(n * lay.out_stride(), 0x5A);
  std::vector<Bytes> sigs(n, Bytes(tempo::perk::signature_size(p)));
  for (std::size_t i = 0; i < n; ++i)
    d::sign_prepare(p, sks[i], msgs[i], rands[i], sigs[i].data(), in.data() + i * lay.in_stride());
  emulate_stage(lay, in.data(), out.data(), n);
  for (std::size_t i = 0; i < n; ++i) d::sign_complete(p, out.data() + i * lay.out_stride(), sigs[i].data());
  return sigs;
}

}  // namespace

TEST_CASE("device PRF (AES-128, Rijndael-256 on bit planes) equals the CPU kernels", "[cuda-emulated]") {
  std::mt19937_64 rng(7);
  for (const Params p : fast_sets) {
    const d::ParamSet& ps = d::param_set(p);
    const dev::Shape s = d::gpu_layout_of(p).s;
    INFO(tempo::perk::name(p));
    for (int trial = 0; trial < 8; ++trial) {
      const Bytes seed = random_bytes(rng, ps.lambda_bytes), salt = random_bytes(rng, ps.salt_bytes());
      const std::uint32_t index = std::uint32_t(rng()) & 0xFFFF, e = trial % ps.tau(), leaf = std::uint32_t(rng()) & 0xFF;
      // Children (PRG1), commitment (Com1) and row (PRG2) through the device code.
      Bytes children(2 * ps.lambda_bytes), com(ps.hash_bytes()), row(s.rs, 0);
      dev::expand_node(s, salt.data(), seed.data(), index, children.data());
      dev::leaf(s, salt.data(), seed.data(), e, leaf, com.data(), row.data());
      // The same through the CPU kernels (the active ones and the portable ones).
      for (const d::Kernels* k : {&d::active_kernels(), &d::portable_kernels()}) {
        INFO(k->name);
        auto base = [&](std::uint8_t dom) {
          Bytes b(32, 0);
          std::memcpy(b.data(), salt.data(), ps.lambda_bytes);
          b[5] ^= dom;
          return b;
        };
        const std::uint8_t* seeds[1] = {seed.data()};
        const Bytes b1 = base(d::dom_prg1), bc = base(d::dom_com1), bp = base(d::dom_prg2);
        Bytes c2(children.size()), cc(com.size()), cr(row.size(), 0);
        const std::uint32_t tw1 = index, twc = e | leaf << 8;
        const d::PrfStream s1{b1.data(), &tw1, 2, c2.data(), c2.size()};
        const d::PrfStream sc{bc.data(), &twc, 2, cc.data(), cc.size()};
        const d::PrfStream sp{bp.data(), nullptr, ps.prg2_blocks(), cr.data(), cr.size()};
        k->aes_prf(ps.level, seeds, 1, &s1, 1);
        k->aes_prf(ps.level, seeds, 1, &sc, 1);
        k->aes_prf(ps.level, seeds, 1, &sp, 1);
        CHECK(children == c2);
        CHECK(com == cc);
        CHECK(row == cr);
      }
    }
  }
}

TEST_CASE("device sponge equals the CPU sponge (SHA3 rates, lengths across lane and block edges)", "[cuda-emulated]") {
  std::mt19937_64 rng(11);
  for (const Params p : fast_sets) {
    const d::ParamSet& ps = d::param_set(p);
    for (const std::size_t len : {0, 1, 7, 8, 9, 71, 72, 135, 136, 137, 300}) {
      const Bytes a = random_bytes(rng, len), b = random_bytes(rng, 13);
      d::Sponge h = d::Sponge::hash(ps);
      h.absorb(b.data(), b.size());
      h.absorb(a.data(), a.size());
      h.finalize(0x18);
      Bytes want(200);
      h.squeeze(want.data(), want.size());
      dev::Sponge g;
      g.init(ps.sha3_rate(), 0x06);
      g.absorb(b.data(), b.size());
      g.absorb(a.data(), a.size());
      g.finalize(0x18);
      Bytes got(200);
      g.squeeze(got.data(), got.size());
      INFO(tempo::perk::name(p) << " len " << len);
      CHECK(got == want);
    }
  }
}

TEST_CASE("emulated device stage equals the CPU stage, in any thread order", "[cuda-emulated]") {
  std::mt19937_64 rng(3);
  for (const Params p : fast_all) {
    if (quick() && !level1(p)) continue;
    const d::StageOp op(p);
    const dev::Layout& lay = op.layout();
    CHECK(op.holds_secrets());
    const std::size_t n = level1(p) ? 2 : 1;
    const Bytes in = random_bytes(rng, n * lay.in_stride());
    Bytes emu(n * lay.out_stride(), 0x5A), emu_rev(emu.size(), 0xC3), cpu(emu.size(), 0x11);
    emulate_stage(lay, in.data(), emu.data(), n);
    emulate_stage(lay, in.data(), emu_rev.data(), n, true);
    tempo::gpu::Chunk c;
    c.count = n;
    c.inputs = 1;
    c.in[0] = {in.data(), lay.in_stride(), nullptr};
    c.out = cpu.data();
    c.out_stride = lay.out_stride();
    op.cpu(c);
    INFO(tempo::perk::name(p));
    CHECK(emu == emu_rev);
    CHECK(emu == cpu);
  }
}

TEST_CASE("device grinding search: the smallest valid counter, in any thread order", "[cuda-emulated]") {
  std::mt19937_64 rng(23);
  bool off_lane0 = false;  // some search's counter outside lane 0's (the lanes' race matters)
  for (const Params p : fast_sets) {
    if (quick() && p != Params::perk_1_fast_aes_aes) continue;
    INFO(tempo::perk::name(p));
    const d::ParamSet& ps = d::param_set(p);
    const dev::Layout lay = d::gpu_layout_of(p);
    for (int trial = 0; trial < 4; ++trial) {
      // ch2 and a as pkp_final leaves them; the tree and the commitments random.
      const Bytes in(lay.in_stride(), 0);
      Bytes out(lay.out_stride(), 0);
      const Bytes a_ch2 = random_bytes(rng, lay.out_ctr() - lay.out_a());  // a || ch2
      std::copy(a_ch2.begin(), a_ch2.end(), out.begin() + lay.out_a());
      Bytes nodes = random_bytes(rng, lay.nodes_bytes()), com = random_bytes(rng, lay.com_bytes());
      // The CPU's search (sign.cpp): the first valid counter.
      std::uint64_t want = 0;
      Bytes ch3(ps.ch3_bytes());
      std::vector<std::uint32_t> i_vect(ps.tau()), s_idx;
      for (;; ++want) {
        d::Sponge g = d::Sponge::prg(ps);
        g.absorb(out.data() + lay.out_ch2(), ps.hash_bytes());
        g.absorb(out.data() + lay.out_a(), lay.out_ch2() - lay.out_a());
        std::uint8_t c[8];
        for (int b = 0; b < 8; ++b) c[b] = std::uint8_t(want >> (8 * b));
        g.absorb(c, 8);
        g.finalize(d::dom_h2_3);
        g.squeeze(ch3.data(), ch3.size());
        if (ps.ch3_bits() % 8 != 0) ch3.back() &= std::uint8_t((1u << (ps.ch3_bits() % 8)) - 1);
        d::BitReader r{ch3.data(), ps.chall_dec_bits()};
        if (r.read(ps.w) != 0) continue;
        d::decode_challenge(ps, ch3.data(), i_vect.data());
        if (d::open_indexes(ps, i_vect.data(), s_idx) && s_idx.size() <= ps.t_open) break;
      }
      off_lane0 = off_lane0 || want % dev::grind_lanes != 0;
      for (const bool reverse : {false, true}) {
        Bytes got = out, st(lay.st_bytes(), 0xA5);
        const dev::Args a{lay, 1, in.data(), got.data(), nodes.data(), com.data(), nullptr, nullptr, st.data()};
        std::uint64_t none = ~std::uint64_t{0};
        std::memcpy(st.data() + lay.st_ctr(), &none, 8);  // as pkp_final leaves it
        const dev::Launch grind{dev::Stage::grind, 0, dev::grind_lanes}, open{dev::Stage::open, 0, 1};
        for (std::uint32_t q = 0; q < dev::grind_lanes; ++q) dev::run_thread(a, grind, reverse ? dev::grind_lanes - 1 - q : q);
        dev::run_thread(a, open, 0);
        std::uint64_t ctr = 0;
        for (int b = 0; b < 8; ++b) ctr |= std::uint64_t(got[lay.out_ctr() + b]) << (8 * b);
        INFO("trial " << trial << (reverse ? " reverse" : ""));
        CHECK(ctr == want);
        CHECK(std::equal(ch3.begin(), ch3.end(), got.begin() + lay.out_ch3()));
        // The opening: the listed nodes' seeds (zeros after them), the hidden leaves' commitments.
        Bytes pdecom(std::size_t{ps.t_open} * ps.lambda_bytes, 0), hidden_com;
        for (std::size_t j = 0; j < s_idx.size(); ++j)
          std::memcpy(pdecom.data() + j * ps.lambda_bytes, nodes.data() + std::size_t{s_idx[j]} * ps.lambda_bytes,
                      ps.lambda_bytes);
        for (std::size_t e = 0; e < ps.tau(); ++e) {
          const auto* c0 = com.data() + std::size_t{i_vect[e] - ps.leaf_offset()} * ps.hash_bytes();
          hidden_com.insert(hidden_com.end(), c0, c0 + ps.hash_bytes());
        }
        CHECK(std::equal(pdecom.begin(), pdecom.end(), got.begin() + lay.out_pdecom()));
        CHECK(std::equal(hidden_com.begin(), hidden_com.end(), got.begin() + lay.out_com()));
      }
    }
  }
  CHECK(off_lane0);
}

namespace {

// The first `count` known answers of set p: the signers' inputs and the signatures.
void add_known_answers(Params p, std::size_t count, std::vector<Bytes>& sks, std::vector<Bytes>& msgs,
                       std::vector<Bytes>& rands, std::vector<Bytes>& want) {
  const auto entries = perk_test::read_rsp(std::string("PQCsignKAT_") + tempo::perk::name(p) + ".rsp");
  for (std::size_t i = 0; i < count; ++i) {
    const auto& e = entries.at(i);
    const perk_test::KatSigner k = perk_test::kat_signer(p, e);
    sks.push_back(k.kp.secret_key);
    msgs.push_back(e.msg);
    rands.push_back(k.rand);
    want.push_back(k.sig);
  }
}

}  // namespace

TEST_CASE("signatures through the emulated device stage equal the CPU path and the known answers",
          "[cuda-emulated]") {
  for (const Params p : fast_all) {
    if (quick() && !level1(p)) continue;
    INFO(tempo::perk::name(p));
    std::vector<Bytes> sks, msgs, rands, want;
    add_known_answers(p, p == Params::perk_1_fast_aes_aes ? 2 : 1, sks, msgs, rands, want);
    // Plus seeded random ones, checked against sign_deterministic.
    std::mt19937_64 rng(19);
    for (int i = 0; i < 2; ++i) {
      const tempo::perk::KeyPair kp = tempo::perk::keygen(p, [&](std::span<std::uint8_t> o) {
        for (auto& x : o) x = std::uint8_t(rng());
      });
      sks.push_back(kp.secret_key);
      msgs.push_back(random_bytes(rng, rng() % 200));
      rands.push_back(random_bytes(rng, tempo::perk::sign_randomness_size(p)));
      want.push_back(tempo::perk::sign_deterministic(p, sks.back(), msgs.back(), rands.back()));
    }
    const auto sigs = sign_emulated(p, sks, msgs, rands);
    for (std::size_t i = 0; i < sigs.size(); ++i) {
      INFO("signature " << i);
      CHECK(sigs[i] == want[i]);
    }
  }
}

TEST_CASE("the device stage covers every set; a malformed key is refused before any work", "[cuda-emulated]") {
  for (const Params p : tempo::perk::all_params()) {
    const std::string n = tempo::perk::name(p);
    INFO(n);
    CHECK(tempo::perk::SignOp(p).has_staged_gpu());
    CHECK(tempo::perk::VerifyOp(p).has_staged_gpu());
    const dev::Shape s = d::gpu_layout_of(p).s;
    CHECK(s.ch3_bytes <= dev::max_ch3);  // the grinding search's buffer
    CHECK(s.aes_prg == (n.find("keccak_keccak") == std::string::npos));
    CHECK(s.aes_commit == (n.find("aes_aes") != std::string::npos));
  }
  CHECK_THROWS_AS(d::gpu_layout_of(Params(99)), std::invalid_argument);
  const Params p = Params::perk_3_fast_aes_aes;  // its public key has padding bits (level 1's has none)
  const dev::Layout lay = d::gpu_layout_of(p);
  tempo::perk::KeyPair kp = tempo::perk::keygen(p);
  kp.secret_key.back() |= 0x80;  // a padding bit of the public key inside the secret key
  Bytes sig(tempo::perk::signature_size(p)), in(lay.in_stride()), rand(tempo::perk::sign_randomness_size(p), 1);
  CHECK_THROWS_AS(d::sign_prepare(p, kp.secret_key, {}, rand, sig.data(), in.data()), std::invalid_argument);
  CHECK_THROWS_AS(d::sign_prepare(p, Bytes(3), {}, rand, sig.data(), in.data()), std::invalid_argument);
}

namespace {

// The verifier's device stages on the host, as emulate_stage runs the signer's (poisoned
// scratch, forwards or backwards within each launch).
void emulate_verify(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count,
                    bool reverse) {
  const dev::Layout& lay = v.lay;
  Bytes nodes(count * lay.nodes_bytes(), 0xA5), com(count * lay.com_bytes(), 0xA5),
      rows(count * lay.rows_bytes(), 0xA5), hq(count * lay.hq_bytes(), 0xA5), st(count * lay.st_bytes(), 0xA5);
  const dev::Args a{lay, count, in, out, nodes.data(), com.data(), rows.data(), hq.data(), st.data()};
  dev::for_each_verify_stage(v, [&](const dev::VerifyLaunch& l) {
    const std::uint64_t n = count * l.per_sig;
    for (std::uint64_t q = 0; q < n; ++q) dev::run_verify_thread(v, a, out, l, reverse ? n - 1 - q : q);
  });
}

// Verdicts through verify_prepare -> the emulated device stages (what the host rejects stays 0).
std::vector<std::uint8_t> verify_emulated(Params p, const std::vector<Bytes>& pks, const std::vector<Bytes>& msgs,
                                          const std::vector<Bytes>& sigs, bool reverse) {
  const dev::VerifyLayout v = d::gpu_verify_layout_of(p);
  const std::size_t n = pks.size(), stride = v.lay.in_stride();
  Bytes in(n * stride);
  std::vector<std::size_t> sent;
  std::vector<std::uint8_t> verdicts(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (d::verify_prepare(p, pks[i], msgs[i], sigs[i], in.data() + sent.size() * stride)) sent.push_back(i);
  Bytes out(sent.size(), 0x5A);
  emulate_verify(v, in.data(), out.data(), sent.size(), reverse);
  for (std::size_t j = 0; j < sent.size(); ++j) verdicts[sent[j]] = out[j];
  return verdicts;
}

}  // namespace

TEST_CASE("the device verifier on the host gives the CPU's verdicts over valid and altered signatures",
          "[cuda-emulated]") {
  // The fast sets and the short aes_aes ones (the other short sets' known answers verify in
  // [cuda-emulated-kat]); under TEMPO_PERK_QUICK the level-1 fast sets.
  std::vector<Params> sets(std::begin(fast_all), std::end(fast_all));
  if (quick()) sets.resize(3);
  else sets.insert(sets.end(), {Params::perk_1_short_aes_aes, Params::perk_3_short_aes_aes, Params::perk_5_short_aes_aes});
  for (const Params p : sets) {
    const d::ParamSet& ps = d::param_set(p);
    INFO(tempo::perk::name(p));
    std::mt19937_64 rng(41 + std::uint64_t(p));
    // The signature's regions, [first, end): each gets a flipped bit.
    const std::size_t regions[][2] = {{0, ps.off_u_tilde()},
                                      {ps.off_u_tilde(), ps.off_pdecom()},
                                      {ps.off_pdecom(), ps.off_com()},
                                      {ps.off_com(), ps.off_ctr()},
                                      {ps.off_ctr(), ps.off_ctr() + 8},
                                      {ps.off_salt(), ps.off_salt() + ps.salt_bytes()},
                                      {ps.off_bits(), ps.sig_bytes()}};
    std::vector<Bytes> pks, msgs, sigs;
    const int keys = p == Params::perk_1_fast_aes_aes ? 3 : 1;
    for (int k = 0; k < keys; ++k) {
      const tempo::perk::KeyPair kp = tempo::perk::keygen(p, [&](std::span<std::uint8_t> o) {
        for (auto& x : o) x = std::uint8_t(rng());
      });
      const Bytes msg = random_bytes(rng, rng() % 100);
      const Bytes sig =
          tempo::perk::sign_deterministic(p, kp.secret_key, msg, random_bytes(rng, tempo::perk::sign_randomness_size(p)));
      auto add = [&](const Bytes& pk, const Bytes& m, const Bytes& s) {
        pks.push_back(pk);
        msgs.push_back(m);
        sigs.push_back(s);
      };
      add(kp.public_key, msg, sig);
      for (const auto& r : regions) {
        Bytes bad = sig;
        const std::size_t bit = std::size_t(rng() % (8 * (r[1] - r[0])));
        bad[r[0] + bit / 8] ^= std::uint8_t(1u << (bit % 8));
        add(kp.public_key, msg, bad);
      }
      Bytes pad = sig;  // the padding bits after the last field
      pad.back() ^= 0x80;
      add(kp.public_key, msg, pad);
      Bytes unused = sig;  // an unused opening seed
      unused[ps.off_com() - 1] ^= 1;
      add(kp.public_key, msg, unused);
      Bytes other_msg = msg;
      other_msg.push_back(0x42);
      add(kp.public_key, other_msg, sig);
      const tempo::perk::KeyPair other = tempo::perk::keygen(p, [&](std::span<std::uint8_t> o) {
        for (auto& x : o) x = std::uint8_t(rng());
      });
      add(other.public_key, msg, sig);
    }
    std::vector<std::uint8_t> cpu(sigs.size());
    for (std::size_t i = 0; i < sigs.size(); ++i) cpu[i] = tempo::perk::verify(p, pks[i], msgs[i], sigs[i]) ? 1 : 0;
    const auto emu = verify_emulated(p, pks, msgs, sigs, false);
    const auto emu_rev = verify_emulated(p, pks, msgs, sigs, true);
    std::size_t valid = 0;
    for (std::size_t i = 0; i < sigs.size(); ++i) {
      INFO("item " << i);
      CHECK(int(emu[i]) == int(cpu[i]));
      CHECK(int(emu_rev[i]) == int(cpu[i]));
      valid += cpu[i];
    }
    CHECK(valid >= std::size_t(keys));  // the untouched signatures, and the test rejects too
    CHECK(valid < sigs.size());
    // The engine operation's CPU side runs the same code.
    const d::VerifyStageOp op(p);
    const dev::VerifyLayout& v = op.layout();
    Bytes in(v.lay.in_stride()), out(1, 0x5A);
    REQUIRE(d::verify_prepare(p, pks[0], msgs[0], sigs[0], in.data()));
    tempo::gpu::Chunk c;
    c.count = 1;
    c.inputs = 1;
    c.in[0] = {in.data(), v.lay.in_stride(), nullptr};
    c.out = out.data();
    c.out_stride = 1;
    op.cpu(c);
    CHECK(int(out[0]) == int(cpu[0]));
  }
}

TEST_CASE("known answers of every set through the emulated device signer and verifier",
          "[cuda-emulated][cuda-emulated-kat]") {
  // The first TEMPO_PERK_EMULATED_KATS (default 1) of each set's 10 (all of them run on a
  // device: [gpu]); under TEMPO_PERK_QUICK the level-1 sets.
  const std::size_t count = std::size_t(tempo::env_integer("TEMPO_PERK_EMULATED_KATS", 1, 10).value_or(1));
  for (const Params p : tempo::perk::all_params()) {
    if (quick() && !level1(p)) continue;
    INFO(tempo::perk::name(p));
    std::vector<Bytes> sks, msgs, rands, want;
    add_known_answers(p, count, sks, msgs, rands, want);
    const auto sigs = sign_emulated(p, sks, msgs, rands);
    const d::ParamSet& ps = d::param_set(p);
    std::vector<Bytes> pks;
    for (std::size_t i = 0; i < count; ++i) {
      INFO("count = " << i);
      CHECK(sigs[i] == want[i]);
      pks.emplace_back(sks[i].begin() + ps.lambda_bytes, sks[i].end());  // sk = seed || pk
    }
    // The known answers verify; one with a flipped salt bit does not.
    Bytes bad = want[0];
    bad[ps.off_salt()] ^= 1;
    pks.push_back(pks[0]);
    msgs.push_back(msgs[0]);
    want.push_back(bad);
    const auto verdicts = verify_emulated(p, pks, msgs, want, false);
    for (std::size_t i = 0; i < count; ++i) CHECK(int(verdicts[i]) == 1);
    CHECK(int(verdicts[count]) == 0);
  }
}
