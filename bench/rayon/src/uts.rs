//! UTS (Unbalanced Tree Search) with its SHA-1 splittable RNG; the same trees
//! and published sizes as bench/workloads/uts.

#[derive(Clone, Copy, PartialEq)]
pub enum Type {
    Binomial,
    Geometric,
}

#[derive(Clone)]
pub struct Params {
    pub name: &'static str,
    pub typ: Type,
    pub b0: f64,
    pub seed: i32,
    pub gen_mx: i32, // geometric, fixed shape only
    pub q: f64,
    pub m: i32,
    pub nodes: u64, // published (0 = check against serial only)
    pub leaves: u64,
    pub depth: i32,
}

pub fn params(name: &str) -> Result<Params, String> {
    let t1 = Params {
        name: "T1",
        typ: Type::Geometric,
        b0: 4.0,
        seed: 19,
        gen_mx: 10,
        q: 0.0,
        m: 0,
        nodes: 4130071,
        leaves: 3305118,
        depth: 10,
    };
    let t3 = Params {
        name: "T3",
        typ: Type::Binomial,
        b0: 2000.0,
        seed: 42,
        gen_mx: 0,
        q: 0.124875,
        m: 8,
        nodes: 4112897,
        leaves: 3599034,
        depth: 1572,
    };
    match name {
        "T1" => Ok(t1),
        "T3" => Ok(t3),
        "T1XS" => Ok(Params { name: "T1XS", gen_mx: 6, nodes: 0, leaves: 0, depth: 0, ..t1 }),
        "T3XS" => Ok(Params { name: "T3XS", b0: 20.0, nodes: 0, leaves: 0, depth: 0, ..t3 }),
        _ => Err(format!("uts: unknown tree '{}' (known: T1, T3, T1XS, T3XS)", name)),
    }
}

#[derive(Clone, Copy)]
pub struct Node {
    pub state: [u8; 20],
    pub height: i32,
}

#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub struct Res {
    pub nodes: u64,
    pub leaves: u64,
    pub depth: i32,
}

impl std::ops::Add for Res {
    type Output = Res;
    fn add(self, o: Res) -> Res {
        Res { nodes: self.nodes + o.nodes, leaves: self.leaves + o.leaves, depth: self.depth.max(o.depth) }
    }
}

pub fn describe(r: &Res) -> String {
    format!("{} nodes, {} leaves, depth {}", r.nodes, r.leaves, r.depth)
}

/// SHA-1 of a message shorter than 56 bytes (one block). The same code shape
/// as bench/workloads/uts/sha1.hpp (inlined, a 16-word schedule ring, the 80
/// rounds unrolled), so that both suites do the same work per node.
#[inline(always)]
pub fn sha1_short(msg: &[u8]) -> [u8; 20] {
    assert!(msg.len() <= 55);
    let mut w = [0u32; 16];
    for (i, &byte) in msg.iter().enumerate() {
        w[i / 4] |= (byte as u32) << (24 - 8 * (i % 4));
    }
    w[msg.len() / 4] |= 0x80u32 << (24 - 8 * (msg.len() % 4));
    w[15] = (msg.len() * 8) as u32; // the bit length; its high word (w[14]) is 0
    let h0: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let (mut a, mut b, mut c, mut d, mut e) = (h0[0], h0[1], h0[2], h0[3], h0[4]);
    macro_rules! step {
        ($i:expr, $f:expr, $k:expr) => {{
            let i: usize = $i;
            if i >= 16 {
                w[i & 15] = (w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15]).rotate_left(1);
            }
            let t = a.rotate_left(5).wrapping_add($f).wrapping_add(e).wrapping_add($k).wrapping_add(w[i & 15]);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }};
    }
    macro_rules! twenty {
        ($base:expr, $f:expr, $k:expr) => {{
            step!($base, $f(b, c, d), $k); step!($base + 1, $f(b, c, d), $k);
            step!($base + 2, $f(b, c, d), $k); step!($base + 3, $f(b, c, d), $k);
            step!($base + 4, $f(b, c, d), $k); step!($base + 5, $f(b, c, d), $k);
            step!($base + 6, $f(b, c, d), $k); step!($base + 7, $f(b, c, d), $k);
            step!($base + 8, $f(b, c, d), $k); step!($base + 9, $f(b, c, d), $k);
            step!($base + 10, $f(b, c, d), $k); step!($base + 11, $f(b, c, d), $k);
            step!($base + 12, $f(b, c, d), $k); step!($base + 13, $f(b, c, d), $k);
            step!($base + 14, $f(b, c, d), $k); step!($base + 15, $f(b, c, d), $k);
            step!($base + 16, $f(b, c, d), $k); step!($base + 17, $f(b, c, d), $k);
            step!($base + 18, $f(b, c, d), $k); step!($base + 19, $f(b, c, d), $k);
        }};
    }
    let ch = |b: u32, c: u32, d: u32| (b & c) | (!b & d);
    let parity = |b: u32, c: u32, d: u32| b ^ c ^ d;
    let maj = |b: u32, c: u32, d: u32| (b & c) | (b & d) | (c & d);
    twenty!(0, ch, 0x5A827999u32);
    twenty!(20, parity, 0x6ED9EBA1u32);
    twenty!(40, maj, 0x8F1BBCDCu32);
    twenty!(60, parity, 0xCA62C1D6u32);
    let h = [
        h0[0].wrapping_add(a),
        h0[1].wrapping_add(b),
        h0[2].wrapping_add(c),
        h0[3].wrapping_add(d),
        h0[4].wrapping_add(e),
    ];
    let mut out = [0u8; 20];
    for i in 0..5 {
        out[4 * i..4 * i + 4].copy_from_slice(&h[i].to_be_bytes());
    }
    out
}

pub fn root(p: &Params) -> Node {
    let mut msg = [0u8; 20];
    msg[16..].copy_from_slice(&p.seed.to_be_bytes());
    Node { state: sha1_short(&msg), height: 0 }
}

pub fn child(n: &Node, i: i32) -> Node {
    let mut msg = [0u8; 24];
    msg[..20].copy_from_slice(&n.state);
    msg[20..].copy_from_slice(&i.to_be_bytes());
    Node { state: sha1_short(&msg), height: n.height + 1 }
}

fn to_prob(s: &[u8; 20]) -> f64 {
    let b = u32::from_be_bytes([s[16], s[17], s[18], s[19]]) & 0x7fff_ffff;
    b as f64 / 2147483648.0
}

pub fn num_children(p: &Params, n: &Node) -> i32 {
    let k = match p.typ {
        Type::Binomial => {
            if n.height == 0 {
                return p.b0.floor() as i32; // root: exactly b0, uncapped
            }
            if to_prob(&n.state) < p.q {
                p.m
            } else {
                0
            }
        }
        Type::Geometric => {
            let b = if n.height > 0 && n.height >= p.gen_mx { 0.0 } else { p.b0 };
            let prob = 1.0 / (1.0 + b);
            let u = to_prob(&n.state);
            ((1.0 - u).ln() / (1.0 - prob).ln()).floor() as i32
        }
    };
    k.min(100)
}

pub fn own(n: &Node, k: i32) -> Res {
    Res { nodes: 1, leaves: if k == 0 { 1 } else { 0 }, depth: n.height }
}

pub fn serial(p: &Params, n: &Node) -> Res {
    let k = num_children(p, n);
    let mut r = own(n, k);
    for i in 0..k {
        r = r + serial(p, &child(n, i));
    }
    r
}

pub fn verify(p: &Params, r: &Res) -> Result<(), String> {
    if p.nodes == 0 {
        return Ok(());
    }
    let want = Res { nodes: p.nodes, leaves: p.leaves, depth: p.depth };
    if *r != want {
        return Err(format!("uts {}: generated {}, published {}", p.name, describe(r), describe(&want)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::sha1_short;

    #[test]
    fn sha1_known_answers() {
        // FIPS 180's "abc", and 55 'a' (the longest message one block holds).
        assert_eq!(
            sha1_short(b"abc"),
            [0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e, 0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d]
        );
        assert_eq!(
            sha1_short(&[b'a'; 55]),
            [0xc1, 0xc8, 0xbb, 0xdc, 0x22, 0x79, 0x6e, 0x28, 0xc0, 0xe1, 0x51, 0x63, 0xd2, 0x08, 0x99, 0xb6, 0x56, 0x21, 0xd6, 0x5a]
        );
    }
}
