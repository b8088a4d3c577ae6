#include "cli/isolation.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cli/failure.hpp"
#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer::cli {
namespace {

// The page the child writes its position into; the parent reads it once
// the child is gone. A torn write shows as a shorter path, never as garbage
// beyond the length.
struct SharedProgress {
  std::atomic<std::uint32_t> length{0};
  char element[1020] = {};
};

class SharedPage {
 public:
  SharedPage() {
    void* page = ::mmap(nullptr, sizeof(SharedProgress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    if (page == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
    m_progress = new (page) SharedProgress;
  }
  ~SharedPage() { ::munmap(m_progress, sizeof(SharedProgress)); }
  SharedPage(const SharedPage&) = delete;
  SharedPage& operator=(const SharedPage&) = delete;
  SharedProgress& get() { return *m_progress; }

 private:
  SharedProgress* m_progress = nullptr;
};

class ChildProgress final : public Progress {
 public:
  explicit ChildProgress(SharedProgress& shared) : m_shared(shared) {}
  void reading(std::string_view element) noexcept override {
    const std::size_t n = std::min(element.size(), sizeof(m_shared.element));
    m_shared.length.store(0, std::memory_order_relaxed);
    std::memcpy(m_shared.element, element.data(), n);
    m_shared.length.store(static_cast<std::uint32_t>(n), std::memory_order_release);
  }

 private:
  SharedProgress& m_shared;
};

class NoProgress final : public Progress {
 public:
  void reading(std::string_view) noexcept override {}
};

std::string last_element(SharedProgress& shared) {
  const std::uint32_t n = shared.length.load(std::memory_order_acquire);
  if (n == 0) return "the file's header";
  return std::string(shared.element, std::min<std::size_t>(n, sizeof(shared.element)));
}

class Fd {
 public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : m_fd(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      m_fd = other.release();
    }
    return *this;
  }
  int get() const { return m_fd; }
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  void reset() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }

 private:
  int m_fd;
};

// The child's answer: 'R' and the result, or 'E', the exit status and the
// message; the payload's length first, so that a child killed while writing
// is told from one that finished.
struct Header {
  char kind = 0;
  std::int32_t status = 0;
  std::uint64_t length = 0;
};

struct Frame {
  Header header;
  std::string payload;
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Allocates nothing: it also reports running out of memory.
bool send(int fd, char kind, std::int32_t status, const std::string& payload) {
  const Header header{kind, status, payload.size()};
  return write_all(fd, &header, sizeof header) && write_all(fd, payload.data(), payload.size());
}

bool decode(const std::string& bytes, Frame& frame) {
  if (bytes.size() < sizeof(Header)) return false;
  std::memcpy(&frame.header, bytes.data(), sizeof(Header));
  if (bytes.size() - sizeof(Header) != frame.header.length) return false;
  if (frame.header.kind != 'R' && frame.header.kind != 'E') return false;
  frame.payload = bytes.substr(sizeof(Header));
  return true;
}

void set_limit(int resource, rlim_t soft, rlim_t hard) {
  const rlimit limit{soft, hard};
  ::setrlimit(resource, &limit);
}

// AddressSanitizer maps terabytes of shadow memory: an address-space limit
// would stop it, not the reader. Such builds run without one.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

// What is kept of the child's stderr.
constexpr std::size_t kMaxDiagnosticBytes = 1 << 20;

// Room for the out-of-memory message, taken before the limit is set.
constexpr std::size_t kReservedMessageBytes = 4096;

void append_bounded(std::string& out, std::string_view text) {
  out.append(text.substr(0, std::min(text.size(), out.capacity() - out.size())));
}

[[noreturn]] void child_main(const Limits& limits, const std::string& source, SharedProgress& shared,
                             int out, const std::function<std::string(Progress&)>& work) {
  // Results leave through the pipe only; a stray write to stdout would
  // break the all-or-nothing promise.
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) ::dup2(null, STDOUT_FILENO);
  std::string no_memory;
  no_memory.reserve(kReservedMessageBytes);
  // A crash is reported, not dumped into the working directory.
  set_limit(RLIMIT_CORE, 0, 0);
  if (limits.memory_bytes > 0 && !kAddressSanitizer) {
    set_limit(RLIMIT_AS, limits.memory_bytes, limits.memory_bytes);
  }
  if (limits.time.count() > 0) {
    // SIGXCPU at the limit, SIGKILL a second later if it is ignored.
    const auto seconds = static_cast<rlim_t>((limits.time.count() + 999) / 1000);
    set_limit(RLIMIT_CPU, seconds, seconds + 1);
  }
  bool sent = false;
  try {
    ChildProgress progress(shared);
    try {
      const std::string result = work(progress);
      sent = send(out, 'R', 0, result);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (...) {
      const Failure failure = current_failure();
      sent = send(out, 'E', static_cast<std::int32_t>(failure.status), failure.message);
    }
  } catch (const std::bad_alloc&) {
    // Allocates nothing beyond the reserve.
    append_bounded(no_memory, source);
    append_bounded(no_memory, ": memory limit of ");
    append_bounded(no_memory, limits.memory_text);
    append_bounded(no_memory, " reached reading ");
    const std::uint32_t n = shared.length.load(std::memory_order_acquire);
    append_bounded(no_memory, n == 0 ? std::string_view("the file's header")
                                     : std::string_view(shared.element, std::min<std::size_t>(
                                                                             n, sizeof(shared.element))));
    append_bounded(no_memory, " (--memory-limit)");
    sent = send(out, 'E', static_cast<std::int32_t>(ExitStatus::invalid_h5ad), no_memory);
  } catch (...) {
    sent = false;
  }
  // _exit: the parent's atexit handlers, buffers and stack frames are not
  // the child's to run.
  ::_exit(sent ? 0 : 1);
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  return status;
}

}  // namespace

std::string run_isolated(const Limits& limits, const std::string& source,
                         const std::function<std::string(Progress&)>& work) {
  if (const char* in_process = std::getenv("H5AD_SIZER_IN_PROCESS"); in_process && *in_process == '1') {
    // For debuggers and for measuring what isolation costs
    // (bench/size_speed.py): no child, no limits, no protection.
    NoProgress none;
    return work(none);
  }
  SharedPage page;
  auto make_pipe = [] {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    return std::pair<Fd, Fd>(Fd(fds[0]), Fd(fds[1]));
  };
  auto [read_end, write_end] = make_pipe();
  // The child's stderr (warnings, -v logs, and what a crashing library
  // prints, such as glibc's "malloc(): corrupted top size") comes here: it
  // is passed on when the child ends normally and dropped when it crashed,
  // so that a failure stays one line.
  auto [log_read_end, log_write_end] = make_pipe();
  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    read_end.reset();
    log_read_end.reset();
    ::dup2(log_write_end.get(), STDERR_FILENO);
    child_main(limits, source, page.get(), write_end.get(), work);
  }
  write_end.reset();
  log_write_end.reset();

  std::string bytes;
  std::string diagnostics;
  bool timed_out = false;
  char buffer[65536];
  pollfd waits[2] = {{read_end.get(), POLLIN, 0}, {log_read_end.get(), POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    int timeout_ms = -1;
    if (limits.time.count() > 0) {
      const auto left = limits.time - std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - started);
      if (left.count() <= 0) {
        timed_out = true;
        break;
      }
      timeout_ms = static_cast<int>(std::min<long long>(left.count(), 1 << 30));
    }
    const int ready = ::poll(waits, 2, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (int i = 0; i < 2; ++i) {
      if (waits[i].fd < 0 || waits[i].revents == 0) continue;
      const ssize_t n = ::read(waits[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {  // EOF: the child is done (or dead)
        waits[i].fd = -1;
        --open_fds;
        continue;
      }
      std::string& into = i == 0 ? bytes : diagnostics;
      // Diagnostics are bounded: a child that floods stderr keeps the start.
      if (i == 0 || diagnostics.size() < kMaxDiagnosticBytes) into.append(buffer, static_cast<std::size_t>(n));
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  const int status = wait_for(pid);
  SharedProgress& shared = page.get();

  if (timed_out || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)) {
    throw_invalid(source + ": time limit of " + limits.time_text + " reached reading " + last_element(shared) +
                  " (--time-limit)");
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGKILL && limits.time.count() > 0) {
      // The hard CPU limit, or the kernel's OOM killer.
      throw_invalid(source + ": killed (SIGKILL) reading " + last_element(shared) +
                    ": out of memory or over the time limit");
    }
    throw_invalid(source + ": the HDF5 reader crashed (" + signal_name(signal) + ") reading " +
                  last_element(shared) + ": the file is corrupt");
  }
  write_all(STDERR_FILENO, diagnostics.data(), diagnostics.size());
  Frame frame;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !decode(bytes, frame)) {
    throw std::runtime_error("the reader process of " + source + " ended without a result (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  if (frame.header.kind == 'E') throw Error(static_cast<ExitStatus>(frame.header.status), frame.payload);
  return frame.payload;
}

}  // namespace h5ad_sizer::cli
