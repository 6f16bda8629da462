// Guide, part 4: negacyclic NTT batches (workloads/ntt).
#include <tempo/ntt.hpp>
#include <tempo/tempo.hpp>

#include <cstdint>
#include <vector>

int main() {
  tempo::ThreadPool pool;
  const tempo::ntt::Plan plan = tempo::ntt::Plan::preset("PN10QP27");  // n = 1024, q = 2^27 - 2^11 + 1
  const std::size_t count = 64;
  std::vector<std::uint64_t> a(count * plan.n(), 1), b(count * plan.n(), 2), c(count * plan.n());
  pool.run([&](tempo::Task& t) {
    tempo::ntt::multiply_batch(t, plan, a, b, c);  // c[i] = a[i] * b[i] mod (X^n + 1, q)
    tempo::ntt::forward_batch(t, plan, a);          // in place, TEMPO_BACKEND decides
    tempo::ntt::inverse_batch(t, plan, a);
  });
}
