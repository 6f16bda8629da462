// The GGM forest, leaf commitments, ConvertToVOLE and VOLEHash (ggm_tree.c, voles.c): PERK's
// PRGs, commitments and layout on tempo::voleith's tree, opening and ConvertToVOLE.
#include <algorithm>
#include <cstring>
#include <vector>

#include <tempo/secure_zero.hpp>
#include <tempo/voleith/ggm.hpp>
#include <tempo/voleith/vole.hpp>

#include "scheme.hpp"
#include "sponge.hpp"

namespace tempo::perk::detail {
namespace {

// The AES PRF's base block: salt[0, lambda/8), zero-padded to the block, domain XORed at byte 5.
void prf_base(const ParamSet& p, const std::uint8_t* salt, std::uint8_t domain, std::uint8_t out[32]) {
  std::memset(out, 0, 32);
  std::memcpy(out, salt, p.lambda_bytes);
  out[5] ^= domain;
}

// Children of n nodes into out (2 * lambda/8 bytes per node).
void expand_seeds(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, const std::uint8_t* const* seeds,
                  const std::uint32_t* idx, std::size_t n, std::uint8_t* out) {
  const unsigned lb = p.lambda_bytes;
  if (p.aes_prg) {
    std::uint8_t base[32];
    prf_base(p, salt, dom_prg1, base);
    const PrfStream s{base, idx, 2, out, 2 * std::size_t{lb}};
    k.aes_prf(p.level, seeds, n, &s, 1);
    return;
  }
  // SHA3(salt || idx (16 bits) || seed || PRG1) (expand_seed_keccak.h)
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    std::uint8_t ib[4][2];
    const std::uint8_t* ip[4];
    const std::uint8_t* sp[4];
    std::uint8_t* op[4];
    for (std::size_t j = 0; j < 4; ++j) {
      put_le16(ib[j], static_cast<std::uint16_t>(idx[i + j]));
      ip[j] = ib[j];
      sp[j] = seeds[i + j];
      op[j] = out + (i + j) * 2 * lb;
    }
    Sponge4 h = Sponge4::hash(p);
    h.absorb_common(salt, p.salt_bytes());
    h.absorb(ip, 2);
    h.absorb(sp, lb);
    h.finalize(dom_prg1);
    h.squeeze(op, 2 * lb);
  }
  for (; i < n; ++i) {
    std::uint8_t ib[2];
    put_le16(ib, static_cast<std::uint16_t>(idx[i]));
    Sponge h = Sponge::hash(p);
    h.absorb(salt, p.salt_bytes());
    h.absorb(ib, 2);
    h.absorb(seeds[i], lb);
    h.finalize(dom_prg1);
    h.squeeze(out + i * 2 * lb, 2 * lb);
  }
}

}  // namespace

voleith::TreeShape tree_shape(const ParamSet& p) { return {p.leaves(), p.lambda_bytes}; }

void expand_tree(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, std::uint8_t* tree, tempo::Task* t,
                 const std::uint8_t* skip) {
  voleith::expand_tree(t, tree_shape(p), tree, skip,
                       [&](const std::uint8_t* const* seeds, const std::uint32_t* idx, std::size_t n, std::uint8_t* out) {
                         expand_seeds(p, k, salt, seeds, idx, n, out);
                       });
}

bool open_indexes(const ParamSet& p, const std::uint32_t* i_vect, std::vector<std::uint32_t>& s) {
  std::vector<std::uint8_t> marks(tree_shape(p).mark_bytes(), 0);
  s.resize(voleith::mark_hidden(tree_shape(p), i_vect, p.tau(), marks.data()));
  voleith::copath(tree_shape(p), marks.data(), voleith::CopathOrder::ascending, s.data());
  return true;
}

void decode_challenge(const ParamSet& p, const std::uint8_t* ch3, std::uint32_t* i_vect) {
  BitReader r{ch3};
  for (unsigned e = 0; e < p.tau(); ++e) i_vect[e] = p.leaf_index(e, r.read(p.k_of(e)));
}

void expand_partial_tree(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, std::uint8_t* tree,
                         const std::vector<std::uint32_t>& s_indexes, const std::uint8_t* pdecom, tempo::Task* t) {
  const unsigned lb = p.lambda_bytes;
  // Nodes no opened seed reaches (the hidden leaves' paths, the opened nodes' ancestors):
  // marked, not expanded, and zero.
  std::vector<std::uint8_t> known(p.nodes(), 0), marks(tree_shape(p).mark_bytes(), 0);
  for (std::size_t j = 0; j < s_indexes.size(); ++j) {
    std::memcpy(tree + std::size_t{s_indexes[j]} * lb, pdecom + j * lb, lb);
    known[s_indexes[j]] = 1;
  }
  for (std::uint32_t a = 1; a < p.nodes(); ++a)
    if (known[(a - 1) / 2]) known[a] = 1;
  for (std::uint32_t a = 0; a < p.nodes(); ++a)
    if (!known[a]) {
      voleith::set_mark(marks.data(), a);
      std::memset(tree + std::size_t{a} * lb, 0, lb);
    }
  expand_tree(p, k, salt, tree, t, marks.data());
}

std::size_t subtree_scratch_bytes(const ParamSet& p) {
  return voleith::vole_work_bytes(p.kappa1, row_stride(p)) + voleith::vole_chunk * 2 * std::size_t{p.lambda_bytes};
}

void subtree_voles(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, const std::uint8_t* tree, unsigned e,
                   unsigned delta, std::uint8_t* cmt_array, std::uint8_t* v, std::uint8_t* u, std::uint8_t* scratch) {
  constexpr unsigned chunk = voleith::vole_chunk;
  const unsigned lb = p.lambda_bytes, ke = p.k_of(e), vb = p.vole_bytes();
  const std::size_t rs = row_stride(p), cb = 2 * std::size_t{lb};
  std::uint8_t* cmts = scratch + voleith::vole_work_bytes(ke, rs);  // one chunk's commitments
  // Commitments: Com1 (leaf_commit_aes.h / leaf_commit_keccak.h); rows: PRG2 (vole_prg2_*.h).
  std::uint8_t base_com[32], base_prg[32];
  prf_base(p, salt, dom_com1, base_com);
  prf_base(p, salt, dom_prg2, base_prg);
  // ConvertToVOLE (voles.c) with the leaves permuted by delta: row m is leaf m ^ delta's;
  // 16 leaves at a time, their commitments on the way.
  voleith::convert_to_vole(
      ke, vb, rs,
      [&](std::size_t first, std::uint8_t* rows) {
        const std::uint8_t* seeds[chunk];
        std::uint32_t tweaks[chunk];
        for (unsigned m = 0; m < chunk; ++m) {
          const unsigned leaf = static_cast<unsigned>(first + m) ^ delta;
          seeds[m] = tree + std::size_t{p.leaf_index(e, leaf)} * lb;
          tweaks[m] = e | leaf << 8;  // leaf_commit_aes.h: tau || n (16 bits)
        }
        const PrfStream com_stream{base_com, tweaks, 2, cmts, cb};
        const PrfStream prg_stream{base_prg, nullptr, p.prg2_blocks(), rows, rs};
        if (p.aes_prg && p.aes_commit) {
          const PrfStream both[2] = {com_stream, prg_stream};
          k.aes_prf(p.level, seeds, chunk, both, 2);
        } else {
          if (p.aes_prg) k.aes_prf(p.level, seeds, chunk, &prg_stream, 1);
          if (p.aes_commit) k.aes_prf(p.level, seeds, chunk, &com_stream, 1);
        }
        if (!p.aes_commit || !p.aes_prg) {
          for (unsigned m = 0; m < chunk; m += 4) {
            const std::uint8_t* sp[4];
            std::uint8_t hdr[4][3];
            const std::uint8_t* hp[4];
            std::uint8_t* cp[4];
            std::uint8_t* rp[4];
            for (unsigned j = 0; j < 4; ++j) {
              sp[j] = seeds[m + j];
              hdr[j][0] = static_cast<std::uint8_t>(e);
              put_le16(hdr[j] + 1, static_cast<std::uint16_t>(tweaks[m + j] >> 8));
              hp[j] = hdr[j];
              cp[j] = cmts + (m + j) * cb;
              rp[j] = rows + (m + j) * rs;
            }
            if (!p.aes_commit) {  // SHA3(salt || tau || n || seed || Com1)
              Sponge4 h = Sponge4::hash(p);
              h.absorb_common(salt, p.salt_bytes());
              h.absorb(hp, 3);
              h.absorb(sp, lb);
              h.finalize(dom_com1);
              h.squeeze(cp, cb);
            }
            if (!p.aes_prg) {  // SHAKE(salt || seed || PRG2)
              Sponge4 g = Sponge4::prg(p);
              g.absorb_common(salt, p.salt_bytes());
              g.absorb(sp, lb);
              g.finalize(dom_prg2);
              g.squeeze(rp, vb);
            }
          }
        }
        for (unsigned m = 0; m < chunk; ++m) {
          const unsigned leaf = static_cast<unsigned>(first + m) ^ delta;
          std::memcpy(cmt_array + std::size_t{p.leaf_index(e, leaf) - p.leaf_offset()} * cb, cmts + m * cb, cb);
        }
      },
      u, v, scratch);
  secure_zero(cmts, chunk * cb);
}

void hash_commitments(const ParamSet& p, const std::uint8_t* salt, const std::uint8_t* cmt_array, std::uint8_t* h_com) {
  const std::size_t cb = p.hash_bytes(), quarter = std::size_t{p.leaves() / 4} * cb;
  std::uint8_t dst[4][64];
  const std::uint8_t* in[4] = {cmt_array, cmt_array + quarter, cmt_array + 2 * quarter, cmt_array + 3 * quarter};
  std::uint8_t* out[4] = {dst[0], dst[1], dst[2], dst[3]};
  Sponge4 h4 = Sponge4::hash(p);
  h4.absorb_common(salt, p.salt_bytes());
  h4.absorb(in, quarter);
  h4.finalize(dom_com2_1);
  h4.squeeze(out, cb);
  Sponge h = Sponge::hash(p);
  h.absorb(salt, p.salt_bytes());
  for (int q = 0; q < 4; ++q) h.absorb(dst[q], cb);
  h.finalize(dom_com2_0);
  h.squeeze(h_com, cb);
}

// VOLEHash (voles.c sig_perk_vole_hash): x = x1 (lambda + 16 bits) || x0; ch1 = r0..r3 || s || t.
void vole_hash(const ParamSet& p, const Kernels& k, const std::uint8_t* ch1, const std::uint8_t* x, std::uint8_t* out) {
  const unsigned lb = p.lambda_bytes, nw = lb / 8, lam = p.lambda();
  const std::uint8_t* x1 = x;
  const std::uint8_t* x0 = x + p.l_vhm() / 8;
  const unsigned bits0 = p.l() + p.l_bar();
  const unsigned len = (bits0 + lam - 1) / lam;  // chunks of lambda bits
  auto load = [nw](const std::uint8_t* b, std::uint64_t* w) {
    for (unsigned i = 0; i < nw; ++i) w[i] = get_le64(b + 8 * i);
  };
  // h0: the last chunk truncated to (l mod lambda) bits (as the package does), then Horner in s.
  std::uint8_t tmp[32] = {};
  std::memcpy(tmp, x0 + std::size_t{len - 1} * lb, p.l() % lam == 0 ? lb : (p.l() % lam) / 8);
  std::uint64_t h0[4], s[4], rs[4], te[4];
  load(tmp, h0);
  load(ch1 + 4 * lb, s);
  std::memcpy(rs, s, sizeof rs);
  for (unsigned i = 1; i < len; ++i) {
    load(x0 + std::size_t{len - 1 - i} * lb, te);
    k.gf_lambda_mul(nw, te, rs, te);
    for (unsigned w = 0; w < nw; ++w) h0[w] ^= te[w];
    k.gf_lambda_mul(nw, rs, rs, s);
  }
  // h1: 64-bit words from the end, the last chunk truncated to ((l + l_bar) mod lambda) bits.
  std::memset(tmp, 0, sizeof tmp);
  std::memcpy(tmp, x0 + std::size_t{len - 1} * lb, bits0 % lam == 0 ? lb : (bits0 % lam) / 8);
  const std::uint64_t t = get_le64(ch1 + 5 * lb);
  std::uint64_t h1 = 0, rt = 1;
  unsigned i = 0;
  for (; i < lb; i += 8) {
    h1 ^= k.gf64_mul(get_le64(tmp + (lb - i - 8)), rt);
    rt = k.gf64_mul(rt, t);
  }
  for (; i < len * lb; i += 8) {
    h1 ^= k.gf64_mul(get_le64(x0 + (std::size_t{len} * lb - i - 8)), rt);
    rt = k.gf64_mul(rt, t);
  }
  std::uint64_t h1p[4] = {h1, 0, 0, 0}, r[4], a[4], h2[4], h3[4];
  load(ch1, r);
  k.gf_lambda_mul(nw, a, r, h0);
  load(ch1 + lb, r);
  k.gf_lambda_mul(nw, h2, r, h1p);
  for (unsigned w = 0; w < nw; ++w) h2[w] ^= a[w];
  load(ch1 + 2 * lb, r);
  k.gf_lambda_mul(nw, a, r, h0);
  load(ch1 + 3 * lb, r);
  k.gf_lambda_mul(nw, h3, r, h1p);
  for (unsigned w = 0; w < nw; ++w) h3[w] ^= a[w];
  for (unsigned w = 0; w < nw; ++w) put_le64(out + 8 * w, h2[w]);
  out[lb] = static_cast<std::uint8_t>(h3[0]);
  out[lb + 1] = static_cast<std::uint8_t>(h3[0] >> 8);
  for (unsigned b = 0; b < p.vole_hash_bytes(); ++b) out[b] ^= x1[b];
  secure_zero(tmp, sizeof tmp);
  secure_zero(h0, sizeof h0);
  secure_zero(te, sizeof te);
  secure_zero(h2, sizeof h2);
  secure_zero(h3, sizeof h3);
  secure_zero(a, sizeof a);
  secure_zero(h1p, sizeof h1p);
}

}  // namespace tempo::perk::detail
