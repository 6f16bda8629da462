// The Keccak PRGs and leaf commitment of PERK's aes_keccak and keccak_keccak sets on the
// device (forest.cpp expand_seeds and subtree_voles' Keccak branches, expand_seed_keccak.h,
// leaf_commit_keccak.h, vole_prg2_keccak.h), on perk_device.hpp's per-thread sponge:
//   tree PRG (keccak_keccak)    SHA3(salt || node index (le16) || seed || PRG1), 2 lambda/8 bytes
//   leaf commitment (both)      SHA3(salt || e || leaf (le16) || seed || Com1), 2 lambda/8 bytes
//   PRG2 row (keccak_keccak)    SHAKE(salt || seed || PRG2), vole_bytes() bytes
// SHA3-256/384/512 and SHAKE128/256 by level (Shape's sha3_rate and shake_rate). The seed is
// secret: it is absorbed at positions fixed by the set, so nothing branches or indexes on it,
// and each sponge is wiped after use. Included at the end of perk_device.hpp, which declares
// these functions before its stages call them.
#pragma once

#include "cuda/perk_device.hpp"

namespace tempo::perk::dev {

TEMPO_PERK_HD void wipe(Sponge& h) {
  TEMPO_PERK_UNROLL
  for (int i = 0; i < 25; ++i) h.a[i] = 0;
}

// SHA3(salt || header || seed || domain), 2 lambda/8 bytes to out.
TEMPO_PERK_HD void hash_seed(const Shape& s, const u8* salt, const u8* header, u32 header_bytes, const u8* seed,
                             u32 domain, u8* out) {
  Sponge h;
  h.init(s.sha3_rate, suffix_sha3);
  h.absorb(salt, 2 * s.lb);
  h.absorb(header, header_bytes);
  h.absorb(seed, s.lb);
  h.finalize(domain);
  h.squeeze(out, s.cb());
  wipe(h);
}

TEMPO_PERK_HD void keccak_expand_node(const Shape& s, const u8* salt, const u8* seed, u32 index, u8* out) {
  const u8 idx[2] = {u8(index), u8(index >> 8)};
  hash_seed(s, salt, idx, 2, seed, dom_prg1, out);
}

TEMPO_PERK_HD void keccak_commit(const Shape& s, const u8* salt, const u8* seed, u32 e, u32 leaf_no, u8* com) {
  const u8 hdr[3] = {u8(e), u8(leaf_no), u8(leaf_no >> 8)};
  hash_seed(s, salt, hdr, 3, seed, dom_com1, com);
}

// The row's bytes past vole_bytes() (up to the scratch stride rs) are zeroed: ConvertToVOLE
// reads whole 8-byte words and drops those bytes, but they must not be stale scratch.
TEMPO_PERK_HD void keccak_prg2(const Shape& s, const u8* salt, const u8* seed, u8* row) {
  Sponge g;
  g.init(s.shake_rate, suffix_shake);
  g.absorb(salt, 2 * s.lb);
  g.absorb(seed, s.lb);
  g.finalize(dom_prg2);
  g.squeeze(row, s.vb);
  for (u32 b = s.vb; b < s.rs; ++b) row[b] = 0;
  wipe(g);
}

}  // namespace tempo::perk::dev
