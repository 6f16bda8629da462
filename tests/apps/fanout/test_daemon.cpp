// The daemon: answers, errors that keep it serving, bounded command lines, buffers
// released between requests; and chunked streaming giving the same bytes as one piece.
#include <random>

#include "fanout.hpp"
#include "util.hpp"

using namespace tempo;
using namespace ftest;

TEST_CASE("tempo-fanout --daemon answers done/error/bye and keeps serving", "[fanout][tool][daemon]") {
  const std::string d = tmpdir();
  write_file(d + "/d1.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"616263\"))");
  write_file(d + "/d2.bin", u32(32) + u32(1) + u32(3) + "abc");
  write_file(d + "/bad.bin", u32(32) + u32(5));
  write_file(d + "/cmds", "process " + d + "/d1.sx " + d + "/d1.out\n" + "process-bin " + d + "/bad.bin " + d +
                              "/bad.out\n" + "frobnicate\n" + std::string(70000, 'y') + "\n" + "fro\x1b[2Jb\n" +
                              "\n" + "process-bin " + d + "/d2.bin " + d + "/d2.out\r\n" + "quit\n" + "process " + d +
                              "/d1.sx " + d + "/never.out\n");
  std::string out;
  REQUIRE(run(exe() + " --daemon < " + d + "/cmds", out) == 0);
  std::istringstream lines(out);
  std::vector<std::string> l;
  for (std::string s; std::getline(lines, s);) l.push_back(s);
  REQUIRE(l.size() == 7);
  CHECK(l[0] == "done " + d + "/d1.out");
  CHECK(l[1].rfind("error ", 0) == 0);
  CHECK(l[1].find("count mismatch") != std::string::npos);
  CHECK(l[2].rfind("error unknown command 'frobnicate'", 0) == 0);
  CHECK(l[3] == "error command line longer than 65536 bytes");
  CHECK(l[4].rfind("error ", 0) == 0);
  CHECK(l[4].find("control byte '\\x1b'") != std::string::npos);
  CHECK(l[5] == "done " + d + "/d2.out");
  CHECK(l[6] == "bye");
  for (const auto& s : l) CHECK(printable(s));
  CHECK_FALSE(exists(d + "/bad.out"));
  CHECK_FALSE(exists(d + "/never.out"));
  const std::string bin = read_file(d + "/d2.out");
  REQUIRE(bin.size() == 40);
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 8), 32) == hash_hex("abc", 32));
  CHECK(read_file(d + "/d1.out").find(hash_hex("abc", 32)) != std::string::npos);
}

TEST_CASE("tempo-fanout --backend cuda fails fast without a device", "[fanout][tool]") {
  if (have_device()) {
    SUCCEED("a device is present");
    return;
  }
  const std::string d = tmpdir();
  write_file(d + "/c.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"00\"))");
  std::string out;
  CHECK(run(exe() + " --backend cuda " + d + "/c.sx " + d + "/c.out", out) == 1);
  CHECK((out.find("no CUDA device") != std::string::npos || out.find("without CUDA") != std::string::npos));
  CHECK_FALSE(exists(d + "/c.out"));
}

TEST_CASE("chunked streaming writes the same bytes as one chunk (binary and S-expression)", "[fanout][daemon]") {
  const std::string d = tmpdir();
  std::mt19937 gen(3);
  auto rng = [&] { return static_cast<std::uint32_t>(gen()); };
  // Uniform (fast path) and mixed lengths; output sizes that do and do not divide the chunk.
  for (const bool uniform : {true, false}) {
    std::string bin = u32(48) + u32(999), sx = "(cuda-shake-fanout (output-bytes 48) (inputs";
    for (int i = 0; i < 999; ++i) {
      const std::uint32_t len = uniform ? 33 : rng() % 200;
      std::string m;
      for (std::uint32_t k = 0; k < len; ++k) m += static_cast<char>(rng());
      bin += u32(len) + m;
      sx += " \"" + hex(reinterpret_cast<const std::uint8_t*>(m.data()), m.size()) + "\"";
    }
    write_file(d + "/s.bin", bin);
    write_file(d + "/s.sx", sx + "))");
    ThreadPool pool(Options{.threads = 2});
    std::string ref_bin, ref_sx;
    for (const std::size_t chunk : {std::size_t{1} << 30, std::size_t{4800}, std::size_t{1000}, std::size_t{1}}) {
      fanout::Options opt;
      opt.backend = tempo::Backend::cpu;
      opt.chunk_bytes = chunk;
      opt.durable = false;
      fanout::Processor p(pool, opt);
      p.process(d + "/s.bin", d + "/s.bin.out", true);
      p.process(d + "/s.sx", d + "/s.sx.out", false);
      const std::string got_bin = read_file(d + "/s.bin.out");
      std::string got_sx = read_file(d + "/s.sx.out");
      got_sx = got_sx.substr(0, got_sx.find("(timing-ms"));
      INFO("uniform " << uniform << " chunk " << chunk);
      const std::size_t per = std::max<std::size_t>(1, chunk / 48);
      CHECK(p.last().chunks == (999 + per - 1) / per);
      if (ref_bin.empty()) {
        ref_bin = got_bin;
        ref_sx = got_sx;
        REQUIRE(ref_bin.size() == 8 + 999 * 48);
        const std::size_t first_len = uniform ? 33 : static_cast<unsigned char>(bin[8]) | (static_cast<unsigned char>(bin[9]) << 8);
        CHECK(hex(reinterpret_cast<const std::uint8_t*>(ref_bin.data() + 8), 48) ==
              hash_hex(bin.substr(12, first_len), 48));
      } else {
        CHECK(got_bin == ref_bin);
        CHECK(got_sx == ref_sx);
      }
    }
  }
}

TEST_CASE("daemon buffers: kept for reuse when small, released when over the limit", "[fanout][daemon][memory]") {
  const std::string d = tmpdir();
  std::string big = u32(32) + u32(20000);
  for (int i = 0; i < 20000; ++i) big += u32(100) + std::string(100, 'b');  // about 2 MiB
  write_file(d + "/big.bin", big);
  write_file(d + "/small.bin", u32(32) + u32(2) + u32(1) + "a" + u32(1) + "b");
  ThreadPool pool(Options{.threads = 2});
  fanout::Options opt;
  opt.backend = tempo::Backend::cpu;
  opt.durable = false;
  opt.retain_bytes = std::size_t{1} << 20;
  opt.chunk_bytes = 64 << 10;
  fanout::Processor p(pool, opt);
  std::ostringstream answers;
  // One request at a time, looking at what is kept after each.
  std::istringstream one("process-bin " + d + "/small.bin " + d + "/o1\n");
  p.serve(one, answers);
  const std::size_t small_kept = p.retained_bytes();
  CHECK(small_kept > 0);
  CHECK(small_kept <= opt.retain_bytes);
  std::istringstream two("process-bin " + d + "/big.bin " + d + "/o2\n");
  p.serve(two, answers);
  CHECK(p.retained_bytes() <= opt.retain_bytes);
  std::istringstream three("process-bin " + d + "/small.bin " + d + "/o3\nquit\n");
  p.serve(three, answers);
  CHECK(answers.str() == "done " + d + "/o1\ndone " + d + "/o2\ndone " + d + "/o3\nbye\n");
  CHECK(read_file(d + "/o2").size() == 8 + 20000 * 32);
  CHECK(read_file(d + "/o3") == read_file(d + "/o1"));
}

TEST_CASE("GPU: cuda, auto and cpu give the same bytes, chunked or not", "[fanout][gpu]") {
  if (!have_device()) {
    WARN("skipped: no CUDA device (" << (gpu::cuda_compiled() ? "built with CUDA" : "built without CUDA") << ")");
    return;
  }
  const std::string d = tmpdir();
  std::mt19937 gen(11);
  auto rng = [&] { return static_cast<std::uint32_t>(gen()); };
  for (const bool uniform : {true, false}) {
    const std::uint32_t n = 300000;
    std::string bin = u32(32) + u32(n);
    bin.reserve(8 + n * 80);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t len = uniform ? 32 : rng() % 100;
      bin += u32(len);
      for (std::uint32_t k = 0; k < len; ++k) bin += static_cast<char>(rng());
    }
    write_file(d + "/g.bin", bin);
    ThreadPool pool;
    std::string ref;
    for (const auto backend : {tempo::Backend::cpu, tempo::Backend::cuda, tempo::Backend::auto_select}) {
      for (const std::size_t chunk : {std::size_t{1} << 30, std::size_t{1} << 20}) {
        fanout::Options opt;
        opt.backend = backend;
        opt.chunk_bytes = chunk;
        fanout::Processor p(pool, opt);
        p.process(d + "/g.bin", d + "/g.out", true);
        const std::string got = read_file(d + "/g.out");
        INFO("uniform " << uniform << " backend " << tempo::backend_name(backend) << " chunk " << chunk);
        if (ref.empty()) ref = got;
        else CHECK(got == ref);
      }
    }
    REQUIRE(ref.size() == 8 + std::size_t{n} * 32);
  }
}

TEST_CASE("streamed binary requests: same bytes as read whole; odd ones fall back", "[fanout][daemon]") {
  const std::string d = tmpdir();
  std::mt19937 gen(5);
  auto rng = [&] { return static_cast<std::uint32_t>(gen()); };
  const std::uint32_t n = 5000, len = 20;
  std::vector<std::string> msgs(n);
  for (auto& m : msgs)
    for (std::uint32_t k = 0; k < len; ++k) m += static_cast<char>(rng());
  auto request = [&](const std::vector<std::string>& ms) {
    std::string s = u32(40) + u32(static_cast<std::uint32_t>(ms.size()));
    for (const auto& m : ms) s += u32(static_cast<std::uint32_t>(m.size())) + m;
    return s;
  };
  // 1: uniform. 2: two lengths changed late, total size unchanged (valid, not
  // uniform). 3: one length wrong late, size unchanged (invalid). 4: one message.
  std::vector<std::string> mixed = msgs;
  mixed[4000].pop_back();
  mixed[4001] += 'x';
  std::string bad = request(msgs);
  bad[8 + 4500 * (4 + len)] = static_cast<char>(len + 1);
  write_file(d + "/u.bin", request(msgs));
  write_file(d + "/m.bin", request(mixed));
  write_file(d + "/b.bin", bad);
  write_file(d + "/one.bin", request({msgs[0]}));
  ThreadPool pool(Options{.threads = 2});
  for (const char* name : {"u", "m", "b", "one"}) {
    std::string whole, streamed, whole_err, streamed_err;
    bool did_stream = false;
    for (const bool stream : {false, true}) {
      fanout::Options opt;
      opt.backend = tempo::Backend::cpu;
      opt.durable = false;
      opt.chunk_bytes = 40 * 700;  // 700 messages per chunk: 8 chunks
      opt.stream_input = stream;
      fanout::Processor p(pool, opt);
      const std::string out = d + "/" + name + (stream ? ".s.out" : ".w.out");
      try {
        p.process(d + "/" + name + ".bin", out, true);
        (stream ? streamed : whole) = read_file(out);
      } catch (const std::exception& e) {
        (stream ? streamed_err : whole_err) = e.what();
        CHECK_FALSE(exists(out));
      }
      if (stream) did_stream = p.last().streamed;
    }
    INFO(name);
    CHECK(streamed == whole);
    CHECK(streamed_err == whole_err);
    CHECK(did_stream == (std::string(name) == "u"));
    if (std::string(name) == "b") CHECK_FALSE(whole_err.empty());
  }
  const std::string u = read_file(d + "/u.s.out");
  REQUIRE(u.size() == 8 + n * 40);
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(u.data() + 8 + 4999 * 40), 40) == hash_hex(msgs[4999], 40));
  CHECK(read_file(d + "/m.s.out").size() == 8 + n * 40);
}
