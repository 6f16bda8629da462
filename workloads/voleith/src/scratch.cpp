#include <cstring>

#include <tempo/secure_zero.hpp>
#include <tempo/voleith/scratch.hpp>

namespace tempo::voleith {

namespace {
constexpr unsigned depth = 4;  // nested signatures / forks on one thread that reuse buffers
}

Scratch::Scratch() {
  thread_local Buffers tls[depth];
  b_ = &own_;
  for (auto& b : tls)
    if (!b.busy) {
      b_ = &b;
      break;
    }
  b_->busy = true;
}

Scratch::~Scratch() {
  for (unsigned i = 0; i < slots; ++i) {
    if (b_->secret[i]) secure_zero(b_->v[i].data(), b_->used[i]);
    b_->used[i] = 0;
    b_->secret[i] = false;
  }
  b_->busy = false;
}

std::uint8_t* Scratch::get(unsigned slot, std::size_t n, bool secret) {
  auto& v = b_->v[slot];
  if (v.size() < n) {
    secure_zero(v.data(), v.size());  // the old contents may be secret
    std::vector<std::uint8_t>().swap(v);
    v.resize(n);
  }
  if (n > b_->used[slot]) b_->used[slot] = n;
  b_->secret[slot] = b_->secret[slot] || secret;
  return v.data();
}

std::uint8_t* Scratch::get_zeroed(unsigned slot, std::size_t n, bool secret) {
  std::uint8_t* p = get(slot, n, secret);
  std::memset(p, 0, n);
  return p;
}

}  // namespace tempo::voleith
