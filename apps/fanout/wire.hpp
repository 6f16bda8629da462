// cuda-fanout's wire formats, read and written exactly (see apps/fanout/README.md).
//
// S-expression input:  (cuda-shake-fanout (output-bytes 32) (inputs "deadbeef" "00ff00ff"))
// S-expression output: (cuda-shake-fanout-result (n 2) (output-bytes 32) (hashes "..." "...")
//                        (timing-ms (load ..) (launch ..) (kernel ..) (write ..)))
// Binary input:  u32 LE out_bytes | u32 LE n | n x (u32 LE len_i | len_i bytes)
// Binary output: u32 LE n | u32 LE out_bytes | n x out_bytes
// (the two header fields come in opposite orders in request and result: cuda-fanout's
// contract, kept as it is).
//
// Whitespace is text.hpp's is_space set everywhere; ';' starts a comment to the end
// of the line. Error messages quote input bytes escaped (text.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hashing.hpp"

namespace tempo::fanout {

// Documented limits: anything over them is rejected with a WireError naming it.
// The output is streamed to the file in bounded chunks (fanout.hpp), so a request
// that asks for up to kMaxTotalOutput bytes needs disk space, not memory.
inline constexpr std::uint64_t kMaxMessages = 1ull << 28;        // messages per request
inline constexpr std::uint64_t kMaxMessageBytes = 1ull << 30;    // bytes per message (1 GiB)
inline constexpr std::uint64_t kMaxOutputBytes = 1ull << 20;     // digest bytes per message (1 MiB)
inline constexpr std::uint64_t kMaxTotalOutput = 16ull << 30;    // n * output-bytes (16 GiB)

// Malformed input: what() is one printable line naming the problem.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parsed request: the messages back to back in `data` (pinned when a GPU exists).
struct Request {
  std::size_t out_bytes = 0;
  std::size_t n = 0;
  gpu::HostBuffer data;
  std::size_t data_size = 0;             // bytes of `data` in use
  bool uniform = true;                   // all messages have the same length ...
  std::size_t uniform_len = 0;           // ... this one
  std::vector<std::uint64_t> offsets;    // n+1 entries when !uniform
};

struct Timing {
  double load = 0, launch = 0, kernel = 0, write = 0;
};

// Parses the S-expression request text (decoded messages into r.data).
void parse_sexpr(std::string_view text, Request& r);
// Parses a binary request held in r.data[0, size); compacts the messages in place.
void parse_binary_in_place(Request& r, std::size_t size);
// The fast path for the common case, every message of one length: checks `in` in
// parallel and gathers the messages into r.data (which must not alias `in`).
// Returns false, with r unspecified, when the request is not of that shape or is
// malformed; parse_binary_in_place then gives the verdict and the error message.
bool parse_binary_uniform(Task& t, const std::uint8_t* in, std::size_t size, Request& r);

// A binary request's shape when every message has the first one's length.
struct UniformLayout {
  std::size_t out_bytes = 0, n = 0, len = 0;
};
// From the first 12 bytes and the total size: the uniform layout if the size is
// exactly that of n records of the first length, within the limits; otherwise nullopt.
std::optional<UniformLayout> uniform_layout(const std::uint8_t* head, std::size_t size);
// Checks that `count` records (u32 LE len | len bytes) at `records` all have length
// `len` and copies their messages to out[0, count*len), in parallel. False on a mismatch.
bool gather_uniform(Task& t, const std::uint8_t* records, std::size_t count, std::size_t len, std::uint8_t* out);

// When a request failed to parse in the format it was given as (`binary` or not) and
// its first bytes look like the other format, the message to give instead of the
// parser's: "this looks like a binary request (...); use --binary" or "this looks like
// an S-expression request; drop --binary" (in the daemon: use process-bin / process).
// Empty when the input does not look like the other format. Reads only the first
// 4 KiB, so call it before an in-place parse changes them.
std::string format_mismatch(const std::uint8_t* in, std::size_t size, bool binary, bool daemon);

// The S-expression result in pieces, so that it can be streamed:
//   sexpr_head(n, ob) + n x one hash entry + sexpr_tail(timing).
std::string sexpr_head(std::size_t n, std::size_t out_bytes);
// Bytes of one hash entry ("\n    \"<2*out_bytes hex digits>\"").
constexpr std::size_t sexpr_entry_size(std::size_t out_bytes) { return 2 * out_bytes + 7; }
// Writes `count` entries (lower-case hex) to out[0, count * sexpr_entry_size(out_bytes)).
void sexpr_entries(const std::uint8_t* digests, std::size_t count, std::size_t out_bytes, char* out);
std::string sexpr_tail(const Timing& t);
// The whole S-expression result in one string (small results and tests).
std::string format_sexpr(std::size_t n, std::size_t out_bytes, std::span<const std::uint8_t> digests, const Timing& t);
// The 8-byte binary result header.
void binary_header(std::uint8_t (&h)[8], std::size_t n, std::size_t out_bytes);

}  // namespace tempo::fanout
