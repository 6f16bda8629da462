// The block ciphers and PRGs: known answers (FIPS-197 AES-128, the Rijndael-256 proposal's
// 256/256 table entry) on every instruction set this CPU has (portable always), and all sets
// equal to a block-by-block reference for both counter rules, many keys, odd lengths and
// truncated blocks. The sponges against tempo::keccak's SHAKE/SHA3.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <tempo/keccak/sponge.hpp>
#include <tempo/voleith/detail/aes_portable.hpp>
#include <tempo/voleith/prg.hpp>
#include <tempo/voleith/sponge.hpp>

namespace v = tempo::voleith;
namespace ct = tempo::voleith::ct;

namespace {

std::vector<std::uint8_t> hex(const std::string& s) {
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(std::stoi(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::vector<v::Isa> isas() {
  std::vector<v::Isa> out;
  for (v::Isa i : {v::Isa::portable, v::Isa::aesni, v::Isa::vaes})
    if (v::cpu_has(i)) out.push_back(i);
  return out;
}

std::vector<std::uint8_t> random_bytes(std::mt19937_64& g, std::size_t n) {
  std::vector<std::uint8_t> b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(g());
  return b;
}

// One block with the portable cipher.
std::vector<std::uint8_t> encrypt_one(v::Cipher c, const std::uint8_t* key, unsigned key_bytes, const std::uint8_t* in) {
  const ct::Shape sh = c == v::Cipher::aes128 ? ct::aes128 : ct::rijndael256;
  std::uint8_t k[32] = {}, rk[480];
  std::memcpy(k, key, key_bytes);
  std::vector<std::uint8_t> blk(in, in + 4 * sh.nb);
  ct::expand_keys(sh, k, 1, rk);
  ct::encrypt_blocks(sh, rk, sh.rk_bytes(), blk.data(), 1);
  return blk;
}

}  // namespace

TEST_CASE("AES-128 (FIPS-197 C.1) and Rijndael-256 known answers on every instruction set", "[prg]") {
  const auto key = hex("000102030405060708090a0b0c0d0e0f"), pt = hex("00112233445566778899aabbccddeeff");
  const auto want = hex("69c4e0d86a7b0430d8cdb78070b4c55a");
  CHECK(encrypt_one(v::Cipher::aes128, key.data(), 16, pt.data()) == want);
  // Rijndael with 256-bit block and key: the proposal's test table (B. Gladman's vectors).
  const auto rkey = hex("2b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfe");
  const auto rpt = hex("3243f6a8885a308d313198a2e03707344a4093822299f31d0082efa98ec4e6c8");
  const auto rwant = hex("a49406115dfb30a40418aafa4869b7c6a886ff31602a7dd19c889dc64f7e4e7a");
  CHECK(encrypt_one(v::Cipher::rijndael256, rkey.data(), 32, rpt.data()) == rwant);
  for (v::Isa isa : isas()) {
    INFO(v::isa_name(isa));
    // Block 0 with tweak 0 is the base block itself under both counter rules.
    std::vector<std::uint8_t> out(16);
    v::aes128_ctr(isa, key.data(), 1, pt.data(), nullptr, 0, out.data(), 16);
    CHECK(out == want);
    std::vector<std::uint8_t> rout(32);
    const v::PrgStream s{rpt.data(), nullptr, 0, 32, 32, rout.data(), 32};
    v::prg(isa, v::Cipher::rijndael256, v::Counter::tweak_xor, v::Keys{nullptr, rkey.data(), 32, 32}, 1, &s, 1);
    CHECK(rout == rwant);
  }
}

TEST_CASE("A set the CPU lacks, or too many streams, is refused", "[prg]") {
  std::uint8_t key[16] = {}, base[16] = {}, out[16];
  const v::PrgStream s{base, nullptr, 0, 16, 16, out, 16};
  for (v::Isa isa : {v::Isa::aesni, v::Isa::vaes})
    if (!v::cpu_has(isa))
      CHECK_THROWS_AS(v::prg(isa, v::Cipher::aes128, v::Counter::ctr32, v::Keys{nullptr, key, 16, 16}, 1, &s, 1),
                      std::invalid_argument);
  const v::PrgStream five[5] = {s, s, s, s, s};
  CHECK_THROWS_AS(v::prg(v::Isa::portable, v::Cipher::aes128, v::Counter::ctr32, v::Keys{nullptr, key, 16, 16}, 1, five, 5),
                  std::invalid_argument);
}

TEST_CASE("Every instruction set equals the block-by-block definition", "[prg]") {
  std::mt19937_64 g(5);
  struct Case {
    v::Cipher cipher;
    v::Counter counter;
    unsigned key_bytes, kept;
  };
  const Case cases[] = {{v::Cipher::aes128, v::Counter::ctr32, 16, 16},
                        {v::Cipher::aes128, v::Counter::tweak_xor, 16, 16},
                        {v::Cipher::rijndael256, v::Counter::tweak_xor, 24, 24},  // PERK level 3
                        {v::Cipher::rijndael256, v::Counter::tweak_xor, 32, 32},
                        {v::Cipher::rijndael256, v::Counter::ctr32, 32, 32}};
  for (const Case& c : cases)
    for (std::size_t n : {1u, 2u, 3u, 7u, 8u, 9u, 16u, 17u, 33u, 53u}) {  // every group size of every kernel
      const unsigned bb = c.cipher == v::Cipher::aes128 ? 16 : 32;
      const auto keys = random_bytes(g, n * c.key_bytes), base0 = random_bytes(g, bb), base1 = random_bytes(g, bb);
      std::vector<std::uint32_t> tweaks(n);
      for (auto& t : tweaks) t = static_cast<std::uint32_t>(g());
      const std::size_t len0 = 2 * c.kept, len1 = 5 * c.kept + 3;  // two streams, the second's last block cut
      std::vector<std::uint8_t> want0(n * len0), want1(n * len1);
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t b = 0; b * c.kept < len1; ++b)
          for (int s = 0; s < 2; ++s) {
            const std::size_t len = s == 0 ? len0 : len1;
            if (b * c.kept >= len) continue;
            std::vector<std::uint8_t> blk(s == 0 ? base0 : base1);
            const std::uint32_t tw = s == 0 ? tweaks[j] : 77;
            if (c.counter == v::Counter::ctr32) {
              std::uint32_t w0, w3;
              std::memcpy(&w0, blk.data(), 4);
              std::memcpy(&w3, blk.data() + 12, 4);
              w0 += static_cast<std::uint32_t>(b);
              w3 += tw;
              std::memcpy(blk.data(), &w0, 4);
              std::memcpy(blk.data() + 12, &w3, 4);
            } else {
              blk[0] ^= static_cast<std::uint8_t>(b);
              for (unsigned k = 0; k < 4; ++k) blk[1 + k] ^= static_cast<std::uint8_t>(tw >> (8 * k));
            }
            const auto e = encrypt_one(c.cipher, keys.data() + j * c.key_bytes, c.key_bytes, blk.data());
            std::uint8_t* dst = (s == 0 ? want0.data() + j * len0 : want1.data() + j * len1) + b * c.kept;
            std::memcpy(dst, e.data(), std::min<std::size_t>(c.kept, len - b * c.kept));
          }
      std::vector<const std::uint8_t*> list(n);
      for (std::size_t j = 0; j < n; ++j) list[j] = keys.data() + j * c.key_bytes;
      for (v::Isa isa : isas()) {
        INFO(v::isa_name(isa) << " n " << n << " key bytes " << c.key_bytes);
        std::vector<std::uint8_t> got0(n * len0), got1(n * len1);
        const v::PrgStream st[2] = {{base0.data(), tweaks.data(), 0, len0, c.kept, got0.data(), len0},
                                    {base1.data(), nullptr, 77, len1, c.kept, got1.data(), len1}};
        v::prg(isa, c.cipher, c.counter, v::Keys{list.data(), nullptr, 0, c.key_bytes}, n, st, 2);
        CHECK(got0 == want0);
        CHECK(got1 == want1);
      }
    }
}

TEST_CASE("Sponges: SHAKE128/256 and SHA3-256 equal tempo::keccak's; four lanes equal four sponges", "[prg]") {
  std::mt19937_64 g(3);
  for (std::size_t len : {0u, 1u, 135u, 136u, 167u, 168u, 169u, 500u}) {
    const auto msg = random_bytes(g, len);
    std::vector<std::uint8_t> a(300), b(300);
    tempo::keccak::shake128(msg, a);
    auto s = v::Sponge::shake128();
    s.absorb(msg.data(), len / 2);
    s.absorb(msg.data() + len / 2, len - len / 2);
    s.finalize();
    s.squeeze(b.data(), 100);
    s.squeeze(b.data() + 100, 200);
    CHECK(a == b);
    tempo::keccak::shake256(msg, a);
    auto s2 = v::Sponge::shake256();
    s2.absorb(msg.data(), len);
    s2.finalize();
    s2.squeeze(b.data(), b.size());
    CHECK(a == b);
    std::array<std::uint8_t, 32> d1{}, d2{};
    tempo::keccak::sha3_256(msg, d1);
    auto h = v::Sponge::sha3(32);
    h.absorb(msg.data(), len);
    h.finalize();
    h.squeeze(d2.data(), 32);
    CHECK(d1 == d2);
    // Four lanes with different inputs and a domain byte, against four single sponges.
    std::vector<std::vector<std::uint8_t>> in(4);
    for (auto& x : in) x = random_bytes(g, len);
    const std::uint8_t* ins[4] = {in[0].data(), in[1].data(), in[2].data(), in[3].data()};
    std::vector<std::vector<std::uint8_t>> outs(4, std::vector<std::uint8_t>(200));
    std::uint8_t* os[4] = {outs[0].data(), outs[1].data(), outs[2].data(), outs[3].data()};
    v::Sponge4 s4(v::rate_sha3(48), v::suffix_sha3);
    s4.absorb_common(msg.data(), len);
    s4.absorb(ins, len);
    s4.finalize(0x18);
    s4.squeeze(os, 200);
    for (int k = 0; k < 4; ++k) {
      auto one = v::Sponge::sha3(48);
      one.absorb(msg.data(), len);
      one.absorb(in[k].data(), len);
      one.finalize(0x18);
      std::vector<std::uint8_t> o(200);
      one.squeeze(o.data(), 200);
      CHECK(o == outs[k]);
    }
  }
}

TEST_CASE("Sponge8: eight lanes equal eight sponges (uneven pieces, every rate, from a prefix)", "[prg]") {
  std::mt19937_64 g(808);
  for (const unsigned rate : {v::rate_shake128, v::rate_shake256, v::rate_sha3(48)}) {
    for (const std::size_t len : {0u, 1u, 7u, 9u, 48u, 167u, 168u, 169u, 500u}) {
      const auto prefix_bytes = random_bytes(g, 13);
      v::Sponge prefix(rate, v::suffix_shake);
      prefix.absorb(prefix_bytes.data(), prefix_bytes.size());
      std::vector<std::vector<std::uint8_t>> in(8), outs(8, std::vector<std::uint8_t>(300));
      const std::uint8_t* ins[8];
      std::uint8_t* os[8];
      for (int k = 0; k < 8; ++k) {
        in[k] = random_bytes(g, len);
        ins[k] = in[k].data();
        os[k] = outs[k].data();
      }
      v::Sponge8 s8(prefix);
      const std::size_t cut = len / 3;  // two absorbs: the second starts mid-lane
      s8.absorb(ins, cut);
      const std::uint8_t* rest[8];
      for (int k = 0; k < 8; ++k) rest[k] = ins[k] + cut;
      s8.absorb(rest, len - cut);
      s8.finalize(0x42);
      s8.squeeze(os, 300);
      for (int k = 0; k < 8; ++k) {
        v::Sponge one = prefix;
        one.absorb(in[k].data(), len);
        one.finalize(0x42);
        std::vector<std::uint8_t> o(300);
        one.squeeze(o.data(), 300);
        INFO("rate " << rate << " len " << len << " lane " << k);
        CHECK(o == outs[k]);
      }
    }
  }
}
