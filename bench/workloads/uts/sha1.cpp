#include "sha1.hpp"

#include <stdexcept>
#include <string>

namespace tb::uts {

void sha1_too_long(std::size_t len) {
  throw std::invalid_argument("sha1_short: message of " + std::to_string(len) + " bytes; at most 55 fit one block");
}

}  // namespace tb::uts
