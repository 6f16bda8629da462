#include <stdexcept>
#include <string>

#include "prg_kernels.hpp"

namespace tempo::voleith {

void prg(Isa isa, Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams,
         unsigned nstreams) {
  if (!cpu_has(isa))
    throw std::invalid_argument(std::string("tempo::voleith::prg: this CPU lacks the ") + isa_name(isa) +
                                " instructions");
  if (nstreams > 4) throw std::invalid_argument("tempo::voleith::prg: at most 4 streams per call");
  if (n == 0) return;
  switch (isa) {
    case Isa::vaes: detail::prg_vaes(cipher, counter, keys, n, streams, nstreams); return;
    case Isa::aesni: detail::prg_ni(cipher, counter, keys, n, streams, nstreams); return;
    case Isa::portable: break;
  }
  detail::prg_portable(cipher, counter, keys, n, streams, nstreams);
}

}  // namespace tempo::voleith
