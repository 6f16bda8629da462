// The protocol (docs/mpi.md): header and plan broadcast from the root; the root's
// communication thread sends every other rank's pieces (round by round, a bounded window
// in flight) and receives results straight into `out`; each other rank's communication
// thread receives its pieces, signals the computing thread piece by piece, and sends
// results back as they are done, then a "done" record (how many leading pieces succeeded,
// and the error if one failed). The root cancels the receives a failed rank will never
// send, and broadcasts the outcome, which every rank turns into the same exception.
#include <tempo/mpi.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include <tempo/secure_zero.hpp>
#include <tempo/tempo.hpp>

#include "comm.hpp"
#include "internal.hpp"
#include "plan.hpp"

namespace tempo::mpi {

using detail::Backoff;
using detail::Comm;
using detail::Requests;

namespace {

constexpr std::size_t kMaxSubchunks = 64;
constexpr int kTagResult = 1000;
constexpr int kTagDone = 2000;
int data_tag(std::size_t piece, std::size_t input, int part) {
  return 1 + static_cast<int>((piece * gpu::kMaxInputs + input) * 2) + part;
}

constexpr std::size_t kText = 1024;

// Broadcast first: what the batch is, or why the root refused it.
struct Header {
  std::int32_t status = 0;  // 0: go; 1: invalid argument (message)
  std::int32_t ranks = 0;
  std::uint64_t items = 0;
  std::uint64_t subchunks = 0;
  std::uint64_t inputs = 0;
  std::uint64_t out_stride = 0;
  std::uint64_t stride[gpu::kMaxInputs] = {};  // 0: variable (by offsets)
  char key[256] = {};
  char message[kText] = {};
};

// A rank's last word to the root, and the root's verdict to everyone.
struct Outcome {
  std::int32_t failed_rank = -1;  // -1: success
  std::int32_t pad = 0;
  std::uint64_t ok_pieces = 0;    // leading pieces whose results were sent
  char message[kText] = {};
};

template <std::size_t N>
void put_text(char (&dst)[N], std::string_view s) {
  const std::size_t len = std::min(s.size(), N - 1);
  std::memcpy(dst, s.data(), len);
  dst[len] = '\0';
}

double ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// Bytes left uninitialised until received into: zero-filling a rank's share first
// would cost a pass over it before any transfer starts.
class Bytes {
 public:
  void resize(std::size_t n) {
    p_ = std::make_unique_for_overwrite<std::uint8_t[]>(n);
    n_ = n;
  }
  std::uint8_t* data() noexcept { return p_.get(); }
  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  void wipe() noexcept { tempo::secure_zero(p_.get(), n_); }

 private:
  std::unique_ptr<std::uint8_t[]> p_;
  std::size_t n_ = 0;
};

std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

std::string failure_text(int rank, std::uint64_t a, std::uint64_t b, const std::string& what) {
  return "tempo::mpi: rank " + std::to_string(rank) + " failed on items [" + std::to_string(a) + ", " +
         std::to_string(b) + "): " + what;
}

// The pieces as every rank sees them: rows of (item, byte of input 0..inputs-1).
struct Plan {
  std::size_t inputs = 0;
  std::size_t subchunks = 0;
  std::size_t out_stride = 0;
  std::array<std::uint64_t, gpu::kMaxInputs> stride{};  // 0: variable
  std::vector<std::uint64_t> rows;

  std::size_t width() const { return 1 + inputs; }
  std::uint64_t item(std::size_t j) const { return rows[j * width()]; }
  std::uint64_t byte(std::size_t j, std::size_t i) const { return rows[j * width() + 1 + i]; }
  std::uint64_t count(std::size_t j) const { return item(j + 1) - item(j); }
  std::uint64_t bytes(std::size_t j, std::size_t i) const { return byte(j + 1, i) - byte(j, i); }
  std::size_t piece(int rank, std::size_t k) const { return static_cast<std::size_t>(rank) * subchunks + k; }
};

// A piece's inputs and outputs on a rank other than the root.
struct Piece {
  std::array<Bytes, gpu::kMaxInputs> data;
  std::array<std::vector<std::uint64_t>, gpu::kMaxInputs> offsets;
  Bytes out;
  std::size_t pending = 0;  // receives not yet complete (communication thread only)
  Signal ready;
};

// Runs f; any exception ends the job (MPI_Abort) with the message on stderr: the
// communication threads have nobody to hand an exception to without risking a hang.
template <class F>
void or_abort(MPI_Comm comm, const char* what, F&& f) noexcept {
  try {
    f();
  } catch (...) {
    std::fprintf(stderr, "tempo::mpi: %s: %s; aborting the job\n", what, describe(std::current_exception()).c_str());
    MPI_Abort(comm, 70);
  }
}

// ---- root -------------------------------------------------------------------------------

void root_transfers(const Comm& comm, const Plan& plan, std::span<const gpu::Operand> inputs, gpu::Output out,
                    std::vector<Outcome>& outcomes) {
  const int ranks = comm.size();
  Requests reqs;
  enum Kind : int { kSend, kResult, kDone };
  struct Meta {
    Kind kind;
    int rank;
    std::size_t k;
  };
  std::vector<Meta> meta;
  // Every request posted since the last call gets this description.
  auto track = [&](Kind kind, int rank, std::size_t k) { meta.resize(reqs.size(), Meta{kind, rank, k}); };

  // Results and done records: posted up front, so they land as soon as they come.
  for (int r = 0; r < ranks; ++r) {
    if (r == comm.rank()) continue;
    for (std::size_t k = 0; k < plan.subchunks; ++k) {
      const std::size_t j = plan.piece(r, k);
      const std::size_t n = plan.count(j) * plan.out_stride;
      if (n == 0) continue;
      reqs.irecv(out.data() + plan.item(j) * plan.out_stride, n, r, kTagResult + static_cast<int>(k), comm.get());
      track(kResult, r, k);
    }
    reqs.irecv(&outcomes[static_cast<std::size_t>(r)], sizeof(Outcome), r, kTagDone, comm.get());
    track(kDone, r, 0);
  }

  // Sends in rounds (every rank's first piece, then every rank's second, ...) so each
  // rank can start early; a bounded window keeps the first round from sharing the link
  // with all later ones.
  struct Send {
    const void* p;
    std::size_t n;
    int rank;
    int tag;
  };
  std::deque<Send> queue;
  for (std::size_t k = 0; k < plan.subchunks; ++k)
    for (int r = 0; r < ranks; ++r) {
      if (r == comm.rank()) continue;
      const std::size_t j = plan.piece(r, k);
      if (plan.count(j) == 0) continue;
      for (std::size_t i = 0; i < plan.inputs; ++i) {
        if (plan.stride[i] == 0)
          queue.push_back({inputs[i].offsets.data() + plan.item(j), (plan.count(j) + 1) * 8, r, data_tag(k, i, 0)});
        if (plan.bytes(j, i) != 0)
          queue.push_back({inputs[i].data.data() + plan.byte(j, i), plan.bytes(j, i), r, data_tag(k, i, 1)});
      }
    }
  const std::size_t window = std::max<std::size_t>(4, 2 * static_cast<std::size_t>(ranks - 1));
  std::size_t sends_in_flight = 0;

  Backoff backoff;
  std::vector<int> done;
  while (!queue.empty() || reqs.active() > 0) {
    while (!queue.empty() && sends_in_flight < window) {
      const Send s = queue.front();
      queue.pop_front();
      const std::size_t before = reqs.size();
      reqs.isend(s.p, s.n, s.rank, s.tag, comm.get());
      sends_in_flight += reqs.size() - before;
      track(kSend, s.rank, 0);
    }
    reqs.test_some(done);
    if (done.empty()) {
      backoff.pause();
      continue;
    }
    backoff.reset();
    for (int d : done) {
      const Meta m = meta[static_cast<std::size_t>(d)];
      if (m.kind == kSend) --sends_in_flight;
      if (m.kind != kDone) continue;
      const Outcome& o = outcomes[static_cast<std::size_t>(m.rank)];
      if (o.failed_rank < 0) continue;
      // That rank sent its first ok_pieces results and never will send the rest.
      for (std::size_t q = 0; q < meta.size(); ++q)
        if (meta[q].kind == kResult && meta[q].rank == m.rank && meta[q].k >= o.ok_pieces) reqs.cancel(q);
    }
  }
}

// ---- other ranks ------------------------------------------------------------------------

struct Outbox {
  std::mutex mu;
  std::deque<std::size_t> results;  // pieces whose results are ready to send
  bool finished = false;
  Outcome outcome;  // final once `finished` is set; sent from here
};

void rank_transfers(const Comm& comm, int root, const Plan& plan, std::vector<Piece>& pieces, Outbox& box) {
  Requests reqs;
  std::vector<std::size_t> owner;  // request -> piece (SIZE_MAX: a send)
  constexpr std::size_t kSendMark = static_cast<std::size_t>(-1);
  const int me = comm.rank();
  for (std::size_t k = 0; k < plan.subchunks; ++k) {
    Piece& p = pieces[k];
    const std::size_t j = plan.piece(me, k);
    const std::size_t before = reqs.size();
    if (plan.count(j) != 0)
      for (std::size_t i = 0; i < plan.inputs; ++i) {
        if (plan.stride[i] == 0) reqs.irecv(p.offsets[i].data(), p.offsets[i].size() * 8, root, data_tag(k, i, 0), comm.get());
        if (!p.data[i].empty()) reqs.irecv(p.data[i].data(), p.data[i].size(), root, data_tag(k, i, 1), comm.get());
      }
    p.pending = reqs.size() - before;
    owner.resize(reqs.size(), k);
    if (p.pending == 0) p.ready.set();
  }

  Backoff backoff;
  std::vector<int> done;
  bool finished = false;
  bool done_posted = false;
  while (!done_posted || reqs.active() > 0) {
    bool progress = false;
    {
      std::deque<std::size_t> ready;
      {
        std::lock_guard lock(box.mu);
        ready.swap(box.results);
        finished = box.finished;
      }
      for (std::size_t k : ready) {
        reqs.isend(pieces[k].out.data(), pieces[k].out.size(), root, kTagResult + static_cast<int>(k), comm.get());
        owner.resize(reqs.size(), kSendMark);
        progress = true;
      }
      if (finished && !done_posted) {
        // After every result send was posted: the root then knows exactly which came.
        reqs.isend(&box.outcome, sizeof(Outcome), root, kTagDone, comm.get());
        owner.resize(reqs.size(), kSendMark);
        done_posted = true;
        progress = true;
      }
    }
    reqs.test_some(done);
    for (int d : done) {
      const std::size_t k = owner[static_cast<std::size_t>(d)];
      if (k == kSendMark) continue;
      Piece& p = pieces[k];
      if (--p.pending != 0) continue;
      // Rebase this piece's offsets so it looks like a batch of its own (offsets[0] = 0).
      for (std::size_t i = 0; i < plan.inputs; ++i)
        if (plan.stride[i] == 0) {
          const std::uint64_t base = p.offsets[i].front();
          for (auto& o : p.offsets[i]) o -= base;
        }
      p.ready.set();
    }
    if (progress || !done.empty())
      backoff.reset();
    else
      backoff.pause();
  }
}

gpu::Chunk piece_chunk(const Plan& plan, std::size_t j, Piece& p) {
  gpu::Chunk c;
  c.begin = plan.item(j);
  c.count = plan.count(j);
  c.inputs = plan.inputs;
  c.out = p.out.data();
  c.out_stride = plan.out_stride;
  for (std::size_t i = 0; i < plan.inputs; ++i) {
    c.in[i].data = p.data[i].data();
    c.in[i].stride = plan.stride[i];
    c.in[i].offsets = plan.stride[i] == 0 ? p.offsets[i].data() : nullptr;
  }
  return c;
}

// The root's own range as one chunk over the caller's memory (no copy).
gpu::Chunk root_chunk(const Plan& plan, int root, std::span<const gpu::Operand> inputs, gpu::Output out) {
  const std::size_t a = plan.piece(root, 0);
  const std::size_t b = plan.piece(root, plan.subchunks);
  gpu::Chunk c;
  c.begin = plan.item(a);
  c.count = plan.item(b) - plan.item(a);
  c.inputs = plan.inputs;
  c.out = out.data() + c.begin * plan.out_stride;
  c.out_stride = plan.out_stride;
  for (std::size_t i = 0; i < plan.inputs; ++i) {
    c.in[i].data = inputs[i].data.data() + plan.byte(a, i);
    c.in[i].stride = plan.stride[i];
    c.in[i].offsets = plan.stride[i] == 0 ? inputs[i].offsets.data() + c.begin : nullptr;
  }
  return c;
}

}  // namespace

namespace detail {

bool is_root(MPI_Comm comm, int root) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  return me == root;
}

Report run_items_checked(Task& t, MPI_Comm user_comm, const ItemKind& kind, std::span<const gpu::Operand> inputs,
                         gpu::Output out, const Compute& compute, const Options& opt, const std::string& root_error) {
  const auto t0 = std::chrono::steady_clock::now();
  Comm comm(user_comm);  // a private duplicate: our tags never meet the caller's messages
  const int ranks = comm.size();
  const int me = comm.rank();
  if (opt.root < 0 || opt.root >= ranks)
    throw std::invalid_argument("tempo::mpi::run: root " + std::to_string(opt.root) + " is not a rank of a " +
                                std::to_string(ranks) + "-rank communicator");
  if (ranks > 1) detail::require_serialized();
  const bool is_root = me == opt.root;

  Report rep;
  rep.rank = me;
  rep.ranks = ranks;

  // 1. The root checks the batch and cuts it; everyone learns the outcome.
  Header h;
  Plan plan;
  if (is_root) {
    try {
      if (!root_error.empty()) throw std::invalid_argument(root_error);
      if (opt.subchunks == 0 || opt.subchunks > kMaxSubchunks)
        throw std::invalid_argument("tempo::mpi::run: subchunks must be 1.." + std::to_string(kMaxSubchunks) +
                                    ", not " + std::to_string(opt.subchunks));
      if (kind.key.size() >= sizeof h.key) throw std::invalid_argument("tempo::mpi::run: op key too long");
      const std::size_t n = detail::validate(inputs, kind.inputs, kind.out_stride, out.size());
      bool uniform = true;
      for (const auto& in : inputs) uniform = uniform && in.is_fixed();
      uniform = uniform || !kind.work;
      const auto item_work = [&](std::size_t i) {
        double bytes = 0;
        for (const auto& in : inputs)
          bytes += in.is_fixed() ? static_cast<double>(in.stride) : static_cast<double>(in.offsets[i + 1] - in.offsets[i]);
        return kind.work(bytes);
      };
      const auto cuts = detail::cut(n, static_cast<std::size_t>(ranks) * opt.subchunks, uniform, item_work);
      plan.rows = detail::plan_rows(cuts, inputs);
      h.items = n;
      h.subchunks = opt.subchunks;
      h.inputs = kind.inputs;
      h.out_stride = kind.out_stride;
      for (std::size_t i = 0; i < inputs.size(); ++i) h.stride[i] = inputs[i].is_fixed() ? inputs[i].stride : 0;
      put_text(h.key, kind.key);
    } catch (const std::invalid_argument& e) {
      h.status = 1;
      put_text(h.message, e.what());
    }
    h.ranks = ranks;
  }
  if (ranks > 1) comm.bcast(&h, sizeof h, opt.root);
  if (h.status != 0) throw std::invalid_argument(h.message);
  plan.inputs = static_cast<std::size_t>(h.inputs);
  plan.subchunks = static_cast<std::size_t>(h.subchunks);
  plan.out_stride = static_cast<std::size_t>(h.out_stride);
  for (std::size_t i = 0; i < gpu::kMaxInputs; ++i) plan.stride[i] = h.stride[i];
  plan.rows.resize((static_cast<std::size_t>(ranks) * plan.subchunks + 1) * plan.width());
  if (ranks > 1) comm.bcast(plan.rows.data(), plan.rows.size() * 8, opt.root);
  rep.items = static_cast<std::size_t>(h.items);
  for (int r = 0; r < ranks; ++r)
    rep.rank_items.push_back(static_cast<std::size_t>(plan.item(plan.piece(r, plan.subchunks)) - plan.item(plan.piece(r, 0))));
  rep.local_items = rep.rank_items[static_cast<std::size_t>(me)];
  rep.plan_ms = ms(t0);

  // This rank's own check: the same operation as the root's.
  std::string local_error;
  if (std::string_view(h.key) != kind.key || plan.inputs != kind.inputs || plan.out_stride != kind.out_stride)
    local_error = "this rank runs '" + kind.key + "' (" + std::to_string(kind.inputs) + " inputs, " +
                  std::to_string(kind.out_stride) + " bytes out), the root '" + h.key + "' (" +
                  std::to_string(plan.inputs) + " inputs, " + std::to_string(plan.out_stride) + " bytes out)";

  auto timed_compute = [&](const gpu::Chunk& c) {
    const auto tc = std::chrono::steady_clock::now();
    compute(t, c);
    rep.compute_ms += ms(tc);
  };

  Outcome verdict;
  if (is_root) {
    std::vector<Outcome> outcomes(static_cast<std::size_t>(ranks));
    std::thread io;
    if (ranks > 1)
      io = std::thread([&] { or_abort(comm.get(), "root transfers", [&] { root_transfers(comm, plan, inputs, out, outcomes); }); });
    const gpu::Chunk mine = root_chunk(plan, me, inputs, out);
    Outcome& own = outcomes[static_cast<std::size_t>(me)];
    if (!local_error.empty()) {
      own.failed_rank = me;
      put_text(own.message, failure_text(me, mine.begin, mine.begin + mine.count, local_error));
    } else if (mine.count != 0) {
      try {
        timed_compute(mine);
      } catch (...) {
        own.failed_rank = me;
        put_text(own.message, failure_text(me, mine.begin, mine.begin + mine.count, describe(std::current_exception())));
      }
    }
    if (io.joinable()) io.join();
    for (const Outcome& o : outcomes)
      if (o.failed_rank >= 0) {
        verdict = o;
        break;  // the lowest failing rank speaks for all
      }
  } else {
    std::vector<Piece> pieces(plan.subchunks);
    // Without room for its share a rank cannot take part; the root would wait forever.
    or_abort(comm.get(), "buffers for this rank's share", [&] {
      for (std::size_t k = 0; k < plan.subchunks; ++k) {
        const std::size_t j = plan.piece(me, k);
        for (std::size_t i = 0; i < plan.inputs; ++i) {
          pieces[k].data[i].resize(plan.count(j) == 0 ? 0 : plan.bytes(j, i));
          if (plan.stride[i] == 0 && plan.count(j) != 0) pieces[k].offsets[i].resize(plan.count(j) + 1);
        }
        pieces[k].out.resize(plan.count(j) * plan.out_stride);
      }
    });
    Outbox box;
    std::thread io([&] { or_abort(comm.get(), "rank transfers", [&] { rank_transfers(comm, opt.root, plan, pieces, box); }); });
    Outcome mine;
    std::size_t ok = 0;
    if (!local_error.empty()) {
      mine.failed_rank = me;
      put_text(mine.message, failure_text(me, plan.item(plan.piece(me, 0)), plan.item(plan.piece(me, plan.subchunks)),
                                          local_error));
    }
    for (std::size_t k = 0; k < plan.subchunks && mine.failed_rank < 0; ++k) {
      const std::size_t j = plan.piece(me, k);
      if (plan.count(j) != 0) {
        const auto tw = std::chrono::steady_clock::now();
        t.wait(pieces[k].ready);
        rep.wait_ms += ms(tw);
        try {
          timed_compute(piece_chunk(plan, j, pieces[k]));
        } catch (...) {
          mine.failed_rank = me;
          put_text(mine.message,
                   failure_text(me, plan.item(j), plan.item(j + 1), describe(std::current_exception())));
          break;
        }
      }
      ++ok;
      std::lock_guard lock(box.mu);
      if (plan.count(j) != 0 && plan.out_stride != 0) box.results.push_back(k);
    }
    mine.ok_pieces = ok;
    {
      std::lock_guard lock(box.mu);
      box.outcome = mine;
      box.finished = true;
    }
    io.join();
    if (opt.wipe_inputs)
      for (auto& p : pieces)
        for (auto& d : p.data) d.wipe();
  }

  // 3. One verdict for all.
  if (ranks > 1) comm.bcast(&verdict, sizeof verdict, opt.root);
  rep.total_ms = ms(t0);
  if (verdict.failed_rank >= 0) throw Error(verdict.failed_rank, verdict.message);
  return rep;
}

Report run_checked(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> inputs,
                   gpu::Output out, const Options& opt, const std::string& root_error);

}  // namespace detail

namespace {
void run_op(Task& t, gpu::Engine& e, const gpu::BatchOp& op, const gpu::RunOptions& ro, const gpu::Chunk& c,
            Report& rep) {
  std::array<gpu::Operand, gpu::kMaxInputs> operands;
  std::array<std::vector<std::uint64_t>, gpu::kMaxInputs> rebased;
  for (std::size_t i = 0; i < c.inputs; ++i) {
    const gpu::ChunkInput& in = c.in[i];
    if (in.offsets == nullptr) {
      operands[i] = gpu::Operand::fixed({in.data, c.count * in.stride}, in.stride);
      continue;
    }
    std::span<const std::uint64_t> offs(in.offsets, c.count + 1);
    if (offs.front() != 0) {  // the root's own range when it is not the first
      rebased[i].assign(offs.begin(), offs.end());
      for (auto& o : rebased[i]) o -= offs.front();
      offs = rebased[i];
    }
    operands[i] = gpu::Operand::variable({in.data, static_cast<std::size_t>(offs.back())}, offs);
  }
  const gpu::BatchReport r =
      e.run(t, op, std::span<const gpu::Operand>(operands.data(), c.inputs), {c.out, c.count * c.out_stride}, ro);
  rep.local_cpu_items += r.cpu_items;
  rep.local_gpu_items += r.gpu_items;
}
}  // namespace

Report detail::run_checked(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> inputs,
                           gpu::Output out, const Options& opt, const std::string& root_error) {
  gpu::Engine& engine = opt.engine != nullptr ? *opt.engine : gpu::Engine::shared();
  ItemKind kind{op.key(), op.inputs(), op.out_stride(), [&op](double b) { return op.work(b); }};
  std::size_t cpu_items = 0, gpu_items = 0;
  Report scratch;
  Report rep = run_items_checked(
      t, comm, kind, inputs, out,
      [&](Task& tt, const gpu::Chunk& c) {
        run_op(tt, engine, op, opt.run, c, scratch);
        cpu_items = scratch.local_cpu_items;
        gpu_items = scratch.local_gpu_items;
      },
      opt, root_error);
  rep.local_cpu_items = cpu_items;
  rep.local_gpu_items = gpu_items;
  return rep;
}

Report run(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> inputs, gpu::Output out,
           const Options& opt) {
  return detail::run_checked(t, comm, op, inputs, out, opt, {});
}

Report run(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::initializer_list<gpu::Operand> inputs,
           gpu::Output out, const Options& opt) {
  return run(t, comm, op, std::span<const gpu::Operand>(inputs.begin(), inputs.size()), out, opt);
}

}  // namespace tempo::mpi
