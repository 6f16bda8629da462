#include <tempo/mpi/faest.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "internal.hpp"

namespace tempo::mpi {

namespace {
void wipe(std::vector<std::uint8_t>& v) {
  volatile std::uint8_t* p = v.data();
  for (std::size_t i = 0; i < v.size(); ++i) p[i] = 0;
}

// Items laid end to end with offsets (the wire format).
struct Packed {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  explicit Packed(std::span<const std::span<const std::uint8_t>> items) {
    for (auto s : items) {
      data.insert(data.end(), s.begin(), s.end());
      offsets.push_back(data.size());
    }
  }
  gpu::Operand operand() const { return gpu::Operand::variable(data, offsets); }
};
}  // namespace

Report faest_sign_batch(Task& t, MPI_Comm comm, faest::Params p, std::span<const std::span<const std::uint8_t>> secret_keys,
                        std::span<const std::span<const std::uint8_t>> messages,
                        std::span<const std::span<const std::uint8_t>> rhos, std::span<std::uint8_t> signatures_out,
                        faest::Backend backend, const Options& opt) {
  const std::size_t sig = faest::signature_size(p);
  const std::size_t sk_len = faest::secret_key_size(p);
  Options o = opt;
  o.wipe_inputs = true;  // secret keys
  const ItemKind kind{std::string("faest-sign/") + faest::name(p), 3, sig, {}};
  const auto compute = [&](Task& tt, const gpu::Chunk& c) {
    std::vector<std::span<const std::uint8_t>> sk(c.count), msg(c.count), rho(c.count);
    std::vector<std::span<std::uint8_t>> outs(c.count);
    for (std::size_t i = 0; i < c.count; ++i) {
      sk[i] = c.in[0].item(i);
      msg[i] = c.in[1].item(i);
      rho[i] = c.in[2].item(i);
      outs[i] = c.out_item(i);
    }
    faest::sign_batch_spans(tt, p, sk, msg, rho, outs, backend);
  };
  if (!detail::is_root(comm, o.root)) return detail::run_items_checked(t, comm, kind, {}, {}, compute, o, {});

  std::string error;
  const std::size_t n = secret_keys.size();
  if (messages.size() != n)
    error = "tempo::mpi::faest_sign_batch: " + std::to_string(n) + " secret keys, " +
            std::to_string(messages.size()) + " messages";
  else if (!rhos.empty() && rhos.size() != n)
    error = "tempo::mpi::faest_sign_batch: " + std::to_string(n) + " secret keys, " + std::to_string(rhos.size()) +
            " rhos (give one per message, or none)";
  for (std::size_t i = 0; i < n && error.empty(); ++i)
    if (secret_keys[i].size() != sk_len)
      error = "tempo::mpi::faest_sign_batch: secret key " + std::to_string(i) + " is " +
              std::to_string(secret_keys[i].size()) + " bytes, not " + std::to_string(sk_len);
  if (error.empty() && signatures_out.size() != n * sig)
    error = "tempo::mpi::faest_sign_batch: signatures_out is " + std::to_string(signatures_out.size()) +
            " bytes, not " + std::to_string(n) + " x " + std::to_string(sig);
  if (!error.empty()) return detail::run_items_checked(t, comm, kind, {}, {}, compute, o, error);

  Packed sks(secret_keys), msgs(messages);
  struct Wiper {
    std::vector<std::uint8_t>& v;
    ~Wiper() { wipe(v); }
  } wipe_keys{sks.data};
  // No rhos: the root draws them (16 bytes each, as faest-ref does), so every rank signs
  // with randomness from one place and the wire format stays the same.
  std::vector<std::uint8_t> drawn;
  std::vector<std::span<const std::uint8_t>> drawn_spans;
  if (rhos.empty()) {
    drawn.resize(16 * n);
    if (n != 0) faest::os_random(drawn);
    for (std::size_t i = 0; i < n; ++i) drawn_spans.emplace_back(drawn.data() + 16 * i, 16);
    rhos = drawn_spans;
  }
  Packed rs(rhos);
  const gpu::Operand ins[3] = {sks.operand(), msgs.operand(), rs.operand()};
  return detail::run_items_checked(t, comm, kind, ins, signatures_out, compute, o, {});
}

}  // namespace tempo::mpi
