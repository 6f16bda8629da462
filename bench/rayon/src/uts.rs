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

/// SHA-1 of a message shorter than 56 bytes (one block).
pub fn sha1_short(msg: &[u8]) -> [u8; 20] {
    assert!(msg.len() <= 55);
    let mut block = [0u8; 64];
    block[..msg.len()].copy_from_slice(msg);
    block[msg.len()] = 0x80;
    let bits = (msg.len() as u64) * 8;
    block[56..].copy_from_slice(&bits.to_be_bytes());
    let mut w = [0u32; 80];
    for i in 0..16 {
        w[i] = u32::from_be_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]]);
    }
    for i in 16..80 {
        w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
    }
    let h0: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let (mut a, mut b, mut c, mut d, mut e) = (h0[0], h0[1], h0[2], h0[3], h0[4]);
    for (i, &wi) in w.iter().enumerate() {
        let (f, k) = match i {
            0..=19 => ((b & c) | (!b & d), 0x5A827999),
            20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
            _ => (b ^ c ^ d, 0xCA62C1D6),
        };
        let t = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(wi);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = t;
    }
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
