// The GPU batch path without a GPU: the kernels' per-thread code (AES on bit planes, the
// leaf hash, H1, and the whole device stage in the kernels' order, emulate.hpp: the VOLE
// commitment, VOLEHash, QuickSilver, grinding) against the CPU backends, and signatures made
// through it byte-identical to the CPU path and the KATs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/tempo.hpp>

#include <tempo/voleith/detail/aes_portable.hpp>
#include "backend.hpp"
#include "emulate.hpp"
#include "gf_portable.hpp"
#include "gpu_path.hpp"
#include "kat.hpp"
#include "shake.hpp"
#include "vc.hpp"

using tempo::faest::Params;
namespace d = tempo::faest::detail;
namespace dev = tempo::faest::dev;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes random_bytes(std::mt19937_64& rng, std::size_t n) {
  Bytes v(n);
  for (auto& b : v) b = std::uint8_t(rng());
  return v;
}

using faest_test::quick;

// The device stage of n items three ways: emulated forwards, emulated backwards, and the
// op's CPU side (what the engine runs on the host); all three must agree on the items
// `used` marks (null: all; a signature rejected before the stage has an unused output).
Bytes device_stage(Params p, bool verifier, const Bytes& in, std::size_t n, const std::vector<bool>* used = nullptr) {
  const d::StageOp op(p, verifier);
  const dev::Layout& lay = op.layout();
  // Signing inputs are root seeds: the engine must wipe its staging and device copies.
  CHECK(op.holds_secrets() == !verifier);
  REQUIRE(in.size() == n * lay.in_stride());
  Bytes emu(n * lay.out_stride(), 0x5A), emu_rev(emu.size(), 0xC3), cpu(emu.size(), 0);
  faest_test::emulate_stage(lay, in.data(), emu.data(), n);
  // Backwards too (FAEST-128f outside the sanitizer builds: the host's bit-plane AES is slow).
  if (p == Params::faest_128f && !quick()) {
    faest_test::emulate_stage(lay, in.data(), emu_rev.data(), n, true);
    for (std::size_t i = 0; i < n; ++i) {
      if (used != nullptr && !(*used)[i]) continue;
      const auto at = std::ptrdiff_t(i * lay.out_stride()), len = std::ptrdiff_t(lay.out_stride());
      REQUIRE(Bytes(emu.begin() + at, emu.begin() + at + len) == Bytes(emu_rev.begin() + at, emu_rev.begin() + at + len));
    }
  }
  tempo::gpu::Chunk c;
  c.count = n;
  c.inputs = 1;
  c.in[0] = {in.data(), lay.in_stride(), nullptr};
  c.out = cpu.data();
  c.out_stride = lay.out_stride();
  op.cpu(c);
  for (std::size_t i = 0; i < n; ++i) {
    if (used != nullptr && !(*used)[i]) continue;
    const auto at = std::ptrdiff_t(i * lay.out_stride()), len = std::ptrdiff_t(lay.out_stride());
    INFO("item " << i);
    REQUIRE(Bytes(emu.begin() + at, emu.begin() + at + len) == Bytes(cpu.begin() + at, cpu.begin() + at + len));
  }
  return emu;
}

// Signs through prepare -> emulated device stage -> complete.
std::vector<Bytes> sign_emulated(Params p, const std::vector<Bytes>& sks, const std::vector<Bytes>& msgs,
                                 const std::vector<Bytes>& rhos) {
  const std::size_t n = sks.size();
  const dev::Layout lay = d::gpu_layout_of(p, false);
  Bytes in(n * lay.in_stride());
  std::vector<Bytes> sigs(n, Bytes(tempo::faest::signature_size(p)));
  for (std::size_t i = 0; i < n; ++i)
    d::sign_prepare(p, sks[i], msgs[i], rhos[i], sigs[i].data(), in.data() + i * lay.in_stride());
  const Bytes out = device_stage(p, false, in, n);
  for (std::size_t i = 0; i < n; ++i) d::sign_complete(p, out.data() + i * lay.out_stride(), sigs[i].data());
  return sigs;
}

std::vector<bool> verify_emulated(Params p, const std::vector<Bytes>& pks, const std::vector<Bytes>& msgs,
                                  const std::vector<Bytes>& sigs) {
  const std::size_t n = pks.size();
  const dev::Layout lay = d::gpu_layout_of(p, true);
  Bytes in(n * lay.in_stride());
  std::vector<d::VerifyJob> jobs(n);
  for (std::size_t i = 0; i < n; ++i)
    d::verify_prepare(p, pks[i], msgs[i], sigs[i].data(), jobs[i], in.data() + i * lay.in_stride());
  std::vector<bool> used(n);
  for (std::size_t i = 0; i < n; ++i) used[i] = jobs[i].ok;
  Bytes out = device_stage(p, true, in, n, &used);
  std::vector<bool> ok(n);
  for (std::size_t i = 0; i < n; ++i)
    ok[i] = d::verify_complete(p, jobs[i], sigs[i].data(), out.data() + i * lay.out_stride());
  return ok;
}

std::vector<Params> sets() {
  if (quick()) return {Params::faest_128f};  // sanitizer builds: the bit-plane AES is slow there
  return {Params::faest_128f, Params::faest_128s};
}

}  // namespace

TEST_CASE("Device AES: the S-box circuit on all 256 bytes, FIPS-197, the PRG equals the CPU backends",
          "[cuda-emulated]") {
  for (int g = 0; g < 8; ++g) {
    std::uint8_t bytes[32], want[32];
    for (int i = 0; i < 32; ++i) bytes[i] = want[i] = std::uint8_t(32 * g + i);
    d::ct::sub_bytes(want, 32);
    std::uint64_t w[4];
    for (int q = 0; q < 4; ++q) w[q] = dev::load_le64(bytes + 8 * q);
    dev::Planes s = dev::to_planes(w);
    dev::sub_bytes(s);
    dev::from_planes(s, w);
    for (int q = 0; q < 4; ++q) dev::store_le64(bytes + 8 * q, w[q]);
    REQUIRE(Bytes(bytes, bytes + 32) == Bytes(want, want + 32));
  }
  // FIPS-197 C.1 in block 0; block 1 (another plaintext) against the CPU's AES.
  const Bytes key = faest_test::hex("000102030405060708090a0b0c0d0e0f");
  Bytes pt = faest_test::hex("00112233445566778899aabbccddeeff");
  dev::RoundKeys rk;
  dev::expand_key(key.data(), rk);
  std::mt19937_64 rng(7);
  for (int rep = 0; rep < 20; ++rep) {
    const Bytes pt1 = random_bytes(rng, 16);
    const std::uint64_t in[4] = {dev::load_le64(pt.data()), dev::load_le64(pt.data() + 8), dev::load_le64(pt1.data()),
                                 dev::load_le64(pt1.data() + 8)};
    std::uint64_t out[4];
    dev::encrypt_pair(rk, in, out);
    Bytes ct(32);
    for (int q = 0; q < 4; ++q) dev::store_le64(ct.data() + 8 * q, out[q]);
    CHECK(Bytes(ct.begin(), ct.begin() + 16) == faest_test::hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
    std::uint8_t rk_cpu[176], want[16];
    d::ct::expand_keys(d::ct::aes128, key.data(), 1, rk_cpu);
    std::memcpy(want, pt1.data(), 16);
    d::ct::encrypt_blocks(d::ct::aes128, rk_cpu, 0, want, 1);
    REQUIRE(Bytes(ct.begin() + 16, ct.end()) == Bytes(want, want + 16));
  }

  for (const std::uint32_t len : {32u, 64u, 210u, 224u}) {
    for (int rep = 0; rep < 20; ++rep) {
      const Bytes k = random_bytes(rng, 16), iv = random_bytes(rng, 16);
      const std::uint32_t tweak = rep % 2 ? std::uint32_t(rng()) : 0x80000000u ^ std::uint32_t(rep);
      Bytes got(len), cpu(len), portable(len);
      dev::prg(k.data(), iv.data(), tweak, got.data(), len);
      d::active_backend().prg(k.data(), 1, iv.data(), nullptr, tweak, cpu.data(), len);
      d::portable_backend().prg(k.data(), 1, iv.data(), nullptr, tweak, portable.data(), len);
      INFO("len " << len << " tweak " << tweak);
      REQUIRE(got == cpu);
      REQUIRE(got == portable);
    }
  }
  // Two keys on one key schedule: each stream as the one-key PRG writes it.
  for (const std::uint32_t len : {16u, 32u, 64u}) {
    for (int rep = 0; rep < 20; ++rep) {
      const Bytes k0 = random_bytes(rng, 16), k1 = random_bytes(rng, 16), iv = random_bytes(rng, 16);
      const std::uint32_t t0 = std::uint32_t(rng()), t1 = rep % 2 ? t0 : std::uint32_t(rng());
      Bytes got0(len), got1(len), want0(len), want1(len);
      dev::prg2(k0.data(), k1.data(), iv.data(), t0, t1, got0.data(), got1.data(), len);
      dev::prg(k0.data(), iv.data(), t0, want0.data(), len);
      dev::prg(k1.data(), iv.data(), t1, want1.data(), len);
      REQUIRE(got0 == want0);
      REQUIRE(got1 == want1);
    }
  }
  // The same streams left on planes: converted back block by block, and sums of rows (the
  // reduce's use) are the planes' sums converted; keep = 0xF0F0F0F0 clears key0's stream.
  for (int rep = 0; rep < 20; ++rep) {
    const Bytes iv = random_bytes(rng, 16);
    const std::uint32_t t = std::uint32_t(rng());
    constexpr std::uint32_t blocks = 14;
    Bytes sum0(16 * blocks, 0), sum1(16 * blocks, 0), planes_sum(32 * blocks, 0);
    for (int row = 0; row < 3; ++row) {
      const Bytes k0 = random_bytes(rng, 16), k1 = random_bytes(rng, 16);
      const std::uint32_t keep = row == 2 ? 0xF0F0F0F0u : ~0u;
      Bytes planes(32 * blocks), want0(16 * blocks), want1(16 * blocks);
      dev::prg2_planes(k0.data(), k1.data(), iv.data(), t, t, planes.data(), blocks, keep);
      dev::prg2(k0.data(), k1.data(), iv.data(), t, t, want0.data(), want1.data(), 16 * blocks);
      for (std::uint32_t b = 0; b < 32 * blocks; ++b) planes_sum[b] ^= planes[b];
      for (std::uint32_t b = 0; b < 16 * blocks; ++b) {
        if (keep == ~0u) sum0[b] ^= want0[b];
        sum1[b] ^= want1[b];
      }
    }
    for (std::uint32_t b = 0; b < blocks; ++b) {
      std::uint64_t w[4];
      dev::planes_to_prg(dev::load_planes(planes_sum.data() + 32 * b), w);
      Bytes got(32);
      for (int q = 0; q < 4; ++q) dev::store_le64(got.data() + 8 * q, w[q]);
      REQUIRE(Bytes(got.begin(), got.begin() + 16) == Bytes(sum0.begin() + 16 * b, sum0.begin() + 16 * b + 16));
      REQUIRE(Bytes(got.begin() + 16, got.end()) == Bytes(sum1.begin() + 16 * b, sum1.begin() + 16 * b + 16));
    }
  }
}

TEST_CASE("Device leaf hash and H1 equal the CPU code", "[cuda-emulated]") {
  std::mt19937_64 rng(11);
  for (int rep = 0; rep < 50; ++rep) {
    const Bytes u = random_bytes(rng, 48), x = random_bytes(rng, 64);
    std::uint8_t got[48], want[48];
    dev::leaf_hash(got, u.data(), x.data());
    d::portable_gf::leaf_hash(want, u.data(), x.data());
    REQUIRE(Bytes(got, got + 48) == Bytes(want, want + 48));
  }
  for (const std::size_t len : {0, 1, 32, 166, 167, 168, 169, 335, 512, 6144, 12288}) {
    const Bytes m = random_bytes(rng, len);
    std::uint8_t got[32], want[32];
    dev::h1(m.data(), len, got);
    d::RandomOracle h;
    h.absorb(m.data(), m.size());
    h.final(d::dom_h1);
    h.squeeze(want, 32);
    INFO("length " << len);
    REQUIRE(Bytes(got, got + 32) == Bytes(want, want + 32));
  }
  // The challenges' oracle over four strings: every split, message lengths on both sides of
  // a block's end (the domain byte and the padding in one block or the next).
  for (const std::uint32_t len : {0u, 5u, 166u, 167u, 168u, 169u, 335u, 336u, 2570u, 3230u}) {
    for (int rep = 0; rep < 6; ++rep) {
      const Bytes m = random_bytes(rng, len + 8);
      std::uint32_t cut[3] = {std::uint32_t(rng() % (len + 1)), std::uint32_t(rng() % (len + 1)),
                              std::uint32_t(rng() % (len + 1))};
      std::sort(cut, cut + 3);
      const std::uint8_t* p = m.data() + rep % 8;  // any alignment
      const dev::Oracle4 o({p, cut[0]}, {p + cut[0], cut[1] - cut[0]}, {p + cut[1], cut[2] - cut[1]},
                           {p + cut[2], len - cut[2]});
      std::uint8_t got[88], want[88];
      o.hash(d::dom_h2_1, got, 88);
      d::RandomOracle h;
      h.absorb(p, len);
      h.final(d::dom_h2_1);
      h.squeeze(want, 88);
      INFO("length " << len << " cuts " << cut[0] << " " << cut[1] << " " << cut[2]);
      REQUIRE(Bytes(got, got + 88) == Bytes(want, want + 88));
    }
  }
}

// The device's grinding accepts a counter only if its opening fits in T_open: dev::opening_fits
// must say what BAVC.Open's bavc_open_set says, on both sides of the bound.
TEST_CASE("Device grinding's T_open check equals BAVC.Open's", "[cuda-emulated]") {
  std::mt19937_64 rng(13);
  for (const Params p : {Params::faest_128f, Params::faest_128s}) {
    INFO(tempo::faest::name(p));
    const d::ParamSet& ps = d::param_set(p);
    const dev::Layout lay = d::gpu_layout_of(p, false);
    std::size_t fits = 0, too_big = 0;
    for (int rep = 0; rep < 4000; ++rep) {
      const Bytes c3 = random_bytes(rng, 16);
      std::uint16_t delta[d::max_tau];
      d::decode_chall3(ps, c3.data(), delta);
      std::vector<std::uint8_t> marks((2 * ps.L - 1 + 7) / 8, 0);
      const bool want = d::bavc_open_set(ps, delta, marks.data());
      REQUIRE(dev::opening_fits(lay.s, c3.data()) == want);
      ++(want ? fits : too_big);
    }
    CHECK(fits > 0);
    CHECK(too_big > 0);
  }
}

TEST_CASE("Device stage op: chunks of at least gpu_chunk signatures; TEMPO_FAEST_GPU_CHUNK read and checked",
          "[cuda-emulated]") {
  ::unsetenv("TEMPO_FAEST_GPU_CHUNK");
  CHECK(d::StageOp(Params::faest_128f, false).min_device_chunk() == d::gpu_chunk);
  ::setenv("TEMPO_FAEST_GPU_CHUNK", "2048", 1);
  CHECK(d::StageOp(Params::faest_128s, true).min_device_chunk() == 2048);
  for (const char* bad : {"0", "many", "2000000"}) {
    ::setenv("TEMPO_FAEST_GPU_CHUNK", bad, 1);
    CHECK_THROWS_WITH(d::StageOp(Params::faest_128f, false), Catch::Contains("TEMPO_FAEST_GPU_CHUNK"));
  }
  ::unsetenv("TEMPO_FAEST_GPU_CHUNK");
}

TEST_CASE("Emulated device stage: signatures byte-identical to the CPU path and the v2 known answers",
          "[cuda-emulated]") {
  const auto v = faest_test::read_v2_vectors();
  const Bytes rho = faest_test::hex(v.at("").at("rho")), msg = faest_test::hex(v.at("").at("msg"));
  std::mt19937_64 rng(3);
  for (const Params p : sets()) {
    INFO(tempo::faest::name(p));
    const auto& sec = v.at(p == Params::faest_128f ? "faest_128f" : "faest_128s");
    std::vector<Bytes> sks{faest_test::hex(sec.at("sk"))}, msgs{msg}, rhos{rho}, pks{faest_test::hex(sec.at("pk"))};
    const bool small = p == Params::faest_128f;  // FAEST-128s: fewer entries (host time)
    for (int i = 0; i < (small ? 2 : 1); ++i) {  // random keys, messages and rho
      tempo::faest::KeyPair kp =
          tempo::faest::keygen(p, [&](std::span<std::uint8_t> o) { for (auto& b : o) b = std::uint8_t(rng()); });
      sks.push_back(kp.secret_key);
      pks.push_back(kp.public_key);
      msgs.push_back(random_bytes(rng, 1 + 37 * std::size_t(i)));
      rhos.push_back(random_bytes(rng, 16));
    }
    const auto sigs = sign_emulated(p, sks, msgs, rhos);
    REQUIRE(sigs[0] == faest_test::hex(sec.at("signature")));
    for (std::size_t i = 0; i < sks.size(); ++i) REQUIRE(sigs[i] == tempo::faest::sign_deterministic(p, sks[i], msgs[i], rhos[i]));

    // Verification through the emulated stage, with tampered copies of every part.
    std::vector<Bytes> vpks, vmsgs, vsigs;
    std::vector<bool> want;
    const d::ParamSet& ps = d::param_set(p);
    const std::size_t spots[] = {0,                  // c_1
                                 ps.off_u_tilde(),   // u_tilde
                                 ps.off_d() + 3,     // d
                                 ps.off_a1(),        // a1
                                 ps.off_decom(),     // a hidden leaf's commitment
                                 ps.off_decom() + 48 * ps.tau + 5,  // a co-path node
                                 ps.off_chall3(),    // chall3 (a low bit: grinding still passes)
                                 ps.off_iv_pre(), ps.off_ctr()};
    for (std::size_t i = 0; i < sks.size(); ++i) {
      vpks.push_back(pks[i]);
      vmsgs.push_back(msgs[i]);
      vsigs.push_back(sigs[i]);
      want.push_back(true);
    }
    for (const std::size_t at : spots) {
      const bool main_spot = at == ps.off_decom() + 48 * ps.tau + 5 || at == 0 || at == ps.off_a1();
      if ((!small || quick()) && !main_spot) continue;
      Bytes bad = sigs[1];
      bad[at] ^= 1;
      vpks.push_back(pks[1]);
      vmsgs.push_back(msgs[1]);
      vsigs.push_back(bad);
      want.push_back(false);
    }
    if (small) {  // rejected before the device stage (harmless items): grinding, opening padding
      for (const std::size_t at : {ps.off_chall3() + 15, ps.off_decom() + ps.decom_bytes() - 1}) {
        Bytes bad = sigs[0];
        bad[at] ^= 0x80;
        vpks.push_back(pks[0]);
        vmsgs.push_back(msgs[0]);
        vsigs.push_back(bad);
        want.push_back(false);
      }
    }
    Bytes other_msg = msgs.back();
    other_msg[0] ^= 0x80;
    vpks.push_back(pks.back());
    vmsgs.push_back(other_msg);
    vsigs.push_back(sigs.back());
    want.push_back(false);
    const auto got = verify_emulated(p, vpks, vmsgs, vsigs);
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("entry " << i);
      CHECK(got[i] == want[i]);
      CHECK(got[i] == tempo::faest::verify(p, vpks[i], vmsgs[i], vsigs[i]));
    }
  }
}

TEST_CASE("GPU batch path on simulated devices (engine, slices, host halves) equals the CPU path",
          "[cuda-emulated]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 1});
  const Params p = Params::faest_128f;
  std::mt19937_64 rng(5);
  const std::size_t n = 5;
  std::vector<Bytes> sks, pks, msgs, rhos, sigs(n, Bytes(tempo::faest::signature_size(p)));
  for (std::size_t i = 0; i < n; ++i) {
    tempo::faest::KeyPair kp =
        tempo::faest::keygen(p, [&](std::span<std::uint8_t> o) { for (auto& b : o) b = std::uint8_t(rng()); });
    sks.push_back(kp.secret_key);
    pks.push_back(kp.public_key);
    msgs.push_back(random_bytes(rng, 20 + i));
    rhos.push_back(random_bytes(rng, 16));
  }
  auto sk_s = tempo::faest::detail::as_spans(sks), msg_s = tempo::faest::detail::as_spans(msgs),
       rho_s = tempo::faest::detail::as_spans(rhos), pk_s = tempo::faest::detail::as_spans(pks);
  std::vector<std::span<std::uint8_t>> outs;
  for (auto& s : sigs) outs.emplace_back(s);
  pool.run([&](tempo::Task& t) { d::sign_batch_gpu(t, p, sk_s, msg_s, rho_s, outs, engine, 2); });
  for (std::size_t i = 0; i < n; ++i) REQUIRE(sigs[i] == tempo::faest::sign_deterministic(p, sks[i], msgs[i], rhos[i]));
  sigs[3][ d::param_set(p).off_a2() ] ^= 4;
  auto sig_s = tempo::faest::detail::as_spans(sigs);
  Bytes ok(n, 7);
  pool.run([&](tempo::Task& t) { d::verify_batch_gpu(t, p, pk_s, msg_s, sig_s, ok, engine, 2); });
  for (std::size_t i = 0; i < n; ++i) CHECK(ok[i] == (i == 3 ? 0 : 1));
}
