// SignOp and VerifyOp on an engine of simulated devices: under Backend::auto_select the
// engine's cost model keeps a small batch on the pool and sends a large one to the devices,
// where the ops run their staged path (host halves around the device stage, which the
// simulated devices compute with its CPU code); the bytes equal the CPU path's either way.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/tempo.hpp>

using tempo::faest::Params;
using tempo::gpu::Operand;
using tempo::gpu::Placement;
using Bytes = std::vector<std::uint8_t>;

namespace {

// A batch in the ops' layout: keys and rhos at fixed strides, messages by offsets.
struct Flat {
  std::vector<Bytes> sks, pks, msgs, rhos;
  Bytes keys, pubs, msg_data, rho_data;
  std::vector<std::uint64_t> offsets{0};
};

Flat make_batch(Params p, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto random = [&](std::span<std::uint8_t> o) {
    for (auto& x : o) x = std::uint8_t(rng());
  };
  Flat b;
  for (std::size_t i = 0; i < n; ++i) {
    const tempo::faest::KeyPair kp = tempo::faest::keygen(p, random);
    Bytes m(rng() % 64), r(16);
    random(m);
    random(r);
    b.sks.push_back(kp.secret_key);
    b.pks.push_back(kp.public_key);
    b.msgs.push_back(m);
    b.rhos.push_back(r);
    b.keys.insert(b.keys.end(), kp.secret_key.begin(), kp.secret_key.end());
    b.pubs.insert(b.pubs.end(), kp.public_key.begin(), kp.public_key.end());
    b.msg_data.insert(b.msg_data.end(), m.begin(), m.end());
    b.rho_data.insert(b.rho_data.end(), r.begin(), r.end());
    b.offsets.push_back(b.msg_data.size());
  }
  return b;
}

Bytes row(const Bytes& flat, std::size_t i, std::size_t len) {
  return Bytes(flat.begin() + std::ptrdiff_t(i * len), flat.begin() + std::ptrdiff_t((i + 1) * len));
}

}  // namespace

TEST_CASE("Auto placement on simulated devices: small batches on the pool, large ones on the devices, same bytes",
          "[engine]") {
  // One worker: the CPU side's estimate grows fastest with the batch, so by the priors
  // about 60 signatures (90 verifications) cross the device path's fixed cost (30 ms).
  tempo::ThreadPool pool(tempo::Options{.threads = 1});
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 2});
  const Params p = Params::faest_128f;
  const std::size_t sig = tempo::faest::signature_size(p);
  const tempo::faest::SignOp sign_op(p, tempo::faest::RhoSource::input), fresh_op(p);
  const tempo::faest::VerifyOp verify_op(p);
  CHECK(sign_op.key() == "faest-sign/128f");
  CHECK(verify_op.key() == "faest-verify/128f");
  CHECK(sign_op.holds_secrets());
  CHECK(sign_op.has_staged_gpu());

  for (const std::size_t n : {std::size_t{3}, std::size_t{200}}) {
    INFO(n << " signatures");
    const Placement want = n < 10 ? Placement::cpu : Placement::gpu;
    const Flat b = make_batch(p, n, 100 + n);
    const Operand keys = Operand::fixed(b.keys, 32), msgs = Operand::variable(b.msg_data, b.offsets);
    Bytes sigs(n * sig), fresh(n * sig), ok(n, 7), fresh_ok(n, 7);
    tempo::gpu::BatchReport rs, rf, rv, rfv;
    // Each batch decides from the priors: a staged batch's measured time (this machine,
    // simulated devices) would otherwise move the next decision.
    auto run = [&](tempo::Task& t, const tempo::gpu::BatchOp& op, std::initializer_list<Operand> in, Bytes& out) {
      engine.cost_model(op).reset();
      return engine.run(t, op, in, out, tempo::Backend::auto_select);
    };
    pool.run([&](tempo::Task& t) {
      rs = run(t, sign_op, {keys, msgs, Operand::fixed(b.rho_data, 16)}, sigs);
      rv = run(t, verify_op, {Operand::fixed(b.pubs, 32), msgs, Operand::fixed(sigs, sig)}, ok);
      rf = run(t, fresh_op, {keys, msgs}, fresh);
      rfv = run(t, verify_op, {Operand::fixed(b.pubs, 32), msgs, Operand::fixed(fresh, sig)}, fresh_ok);
    });
    for (const auto* r : {&rs, &rv, &rf, &rfv}) {
      INFO(r->reason);
      CHECK(r->reason.find("cost model") != std::string::npos);
      CHECK(r->ran_on == want);
      CHECK(r->items == n);
      CHECK(r->gpu_items == (want == Placement::gpu ? n : 0));
    }
    for (std::size_t i = 0; i < n; ++i) {
      INFO("item " << i);
      CHECK(row(sigs, i, sig) == tempo::faest::sign_deterministic(p, b.sks[i], b.msgs[i], b.rhos[i]));
      CHECK(ok[i] == 1);
      CHECK(fresh_ok[i] == 1);
      CHECK(row(fresh, i, sig) != row(sigs, i, sig));
    }
  }
  // The engine timed the last staged batch of each key for its cost model, like any device batch.
  CHECK(engine.cost_model(sign_op).gpu().observations() == 1);
  CHECK(engine.cost_model(verify_op).gpu().observations() == 1);

  // A forced device placement runs the staged path even for a tiny batch; a tampered
  // signature is rejected there as on the CPU.
  const Flat b = make_batch(p, 2, 7);
  Bytes sigs(2 * sig), ok(2, 7);
  tempo::gpu::BatchReport rs, rv;
  pool.run([&](tempo::Task& t) {
    rs = engine.run(t, sign_op, {Operand::fixed(b.keys, 32), Operand::variable(b.msg_data, b.offsets),
                                 Operand::fixed(b.rho_data, 16)},
                    sigs, tempo::Backend::cuda);
    sigs[sig + 9] ^= 1;
    rv = engine.run(t, verify_op,
                    {Operand::fixed(b.pubs, 32), Operand::variable(b.msg_data, b.offsets), Operand::fixed(sigs, sig)},
                    ok, tempo::Backend::cuda);
  });
  CHECK(rs.ran_on == Placement::gpu);
  CHECK(rv.ran_on == Placement::gpu);
  CHECK(row(sigs, 0, sig) == tempo::faest::sign_deterministic(p, b.sks[0], b.msgs[0], b.rhos[0]));
  CHECK(ok == Bytes{1, 0});
}

TEST_CASE("parameter set names: any case, with or without the FAEST prefix", "[engine]") {
  for (const char* s : {"128f", "FAEST-128f", "faest_128F", "Faest128f"}) CHECK(tempo::faest::parse_params(s) == Params::faest_128f);
  for (const char* s : {"128s", "FAEST-128s"}) CHECK(tempo::faest::parse_params(s) == Params::faest_128s);
  CHECK(std::string(tempo::faest::name(tempo::faest::parse_params(tempo::faest::name(Params::faest_128s)))) == "FAEST-128s");
  CHECK_THROWS_WITH(tempo::faest::parse_params("192f"), Catch::Contains("'192f'") && Catch::Contains("128f, 128s"));
}
