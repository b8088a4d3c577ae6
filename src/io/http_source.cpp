#include "h5ad_sizer/io/http_source.hpp"

#include "curl_api.hpp"
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <strings.h>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/io/read_footprint.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer::io {
namespace {

using Clock = std::chrono::steady_clock;

// One response, as the callbacks see it.
struct Response {
  long status = 0;
  std::string content_range;
  std::string location;       // a redirect's target
  std::string refused_address;  // a link-local address the connection was stopped at
  // The body in parts of `part_bytes` (the cache's blocks), the last one
  // possibly shorter: the cache takes them as they are, with no second copy.
  std::vector<std::vector<char>> body;
  std::size_t part_bytes = 0;
  std::size_t received = 0;
  std::size_t body_limit = 0;  // refuse bodies larger than what we asked for
  bool refused_full_body = false;
};

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* response = static_cast<Response*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    response->content_range.clear();  // a new response (after a redirect or 100)
    const auto space = line.find(' ');
    if (space != std::string::npos) response->status = std::strtol(line.c_str() + space + 1, nullptr, 10);
  } else if (line.size() > 14 && strncasecmp(line.c_str(), "content-range:", 14) == 0) {
    response->content_range = line.substr(14);
  } else if (line.size() > 9 && strncasecmp(line.c_str(), "location:", 9) == 0) {
    const auto start = line.find_first_not_of(" \t", 9);
    const auto end = line.find_last_not_of(" \t\r\n");
    response->location = start == std::string::npos || end < start ? "" : line.substr(start, end - start + 1);
  }
  return size * count;
}

// 169.254.0.0/16 (EC2's and ECS's metadata and credential endpoints live
// there), fe80::/10, and EC2's IPv6 metadata address fd00:ec2::254; IPv4
// ones also when mapped into IPv6.
bool is_link_local(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const unsigned char*>(
        &reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr);
    return v4[0] == 169 && v4[1] == 254;
  }
  if (address->sa_family != AF_INET6) return false;
  const unsigned char* v6 = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr.s6_addr;
  if (v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80) return true;
  static const unsigned char kMetadata[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};
  if (std::memcmp(v6, kMetadata, sizeof kMetadata) == 0) return true;
  static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(v6, kMapped, sizeof kMapped) == 0 && v6[12] == 169 && v6[13] == 254;
}

// libcurl asks us for each socket it connects: a link-local address gets
// none, before any packet is sent.
curl_socket_t open_socket_refusing_link_local(void* user, curlsocktype, curl_sockaddr* address) {
  if (is_link_local(&address->addr)) {
    char text[INET6_ADDRSTRLEN] = "?";
    const void* raw = address->family == AF_INET
                          ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&address->addr)->sin_addr)
                          : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&address->addr)->sin6_addr);
    ::inet_ntop(address->family, raw, text, sizeof text);
    static_cast<Response*>(user)->refused_address = text;
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// "host:port" of an http(s) URL, lower case, without userinfo; "" if none.
std::string host_of(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "";
  std::string scheme = url.substr(0, scheme_end);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "http" && scheme != "https") return "";
  const auto start = scheme_end + 3;
  const auto end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (const auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  for (char& c : authority) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (authority.find(':') == std::string::npos || authority.back() == ']') {
    authority += scheme == "https" ? ":443" : ":80";
  }
  return authority;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* response = static_cast<Response*>(user);
  const std::size_t bytes = size * count;
  if (response->status == 200 || response->received + bytes > response->body_limit) {
    // The server ignores Range and is sending the whole file: stop now.
    response->refused_full_body = true;
    return 0;
  }
  const std::size_t part_bytes = response->part_bytes > 0 ? response->part_bytes : response->body_limit;
  for (std::size_t at = 0; at < bytes;) {
    if (response->body.empty() || response->body.back().size() == part_bytes) {
      response->body.emplace_back().reserve(std::min(part_bytes, response->body_limit - response->received - at));
    }
    std::vector<char>& part = response->body.back();
    const std::size_t take = std::min(bytes - at, part_bytes - part.size());
    part.insert(part.end(), data + at, data + at + take);
    at += take;
  }
  response->received += bytes;
  return bytes;
}

// "bytes 0-1023/146515" -> 146515
std::optional<std::uint64_t> total_from_content_range(const std::string& header) {
  const auto slash = header.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string total = header.substr(slash + 1);
  if (total.empty() || !std::isdigit(static_cast<unsigned char>(total[0]))) return std::nullopt;
  return std::strtoull(total.c_str(), nullptr, 10);
}

// A curl_slist owned for the length of one request.
struct HeaderList {
  HeaderList() = default;
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  curl_slist* list = nullptr;
  ~HeaderList() { curl().slist_free_all(list); }
  void add(const std::string& header) { list = curl().slist_append(list, header.c_str()); }
};

bool retryable_status(long status) { return status == 429 || status >= 500; }

class HttpSource final : public ByteSource {
 public:
  HttpSource(std::string url, std::string display_name, HttpOptions options)
      : m_url(std::move(url)), m_name(std::move(display_name)), m_options(std::move(options)) {
    m_curl = curl().easy_init();
    if (m_curl == nullptr) throw Error(ExitStatus::internal_error, "cannot initialise libcurl");
    m_random.seed(std::random_device{}());
    // The first request tells the size and brings the superblock and root
    // group, which every later read starts from.
    fetch(0, m_options.first_read_bytes);
  }
  ~HttpSource() override {
    for (CURL* handle : m_idle) curl().easy_cleanup(handle);
    if (m_multi != nullptr) curl().multi_cleanup(m_multi);
    curl().easy_cleanup(m_curl);
  }
  HttpSource(const HttpSource&) = delete;
  HttpSource& operator=(const HttpSource&) = delete;

  std::uint64_t size() override { return m_size; }

  void read(std::uint64_t offset, std::size_t length, void* out) override {
    if (length == 0) return;
    if (offset > m_size || length > m_size - offset) {
      // As a local file would: the file ends before what it points at.
      throw_invalid(m_name + ": cannot read " + std::to_string(length) + " bytes at " + std::to_string(offset) +
                    ": unexpected end of file");
    }
    m_wanted.add(offset, length);
    m_stats.bytes_wanted = m_wanted.bytes();
    const std::uint64_t block = m_options.block_bytes;
    const std::uint64_t first = offset / block;
    const std::uint64_t last = (offset + length - 1) / block;
    bool missed = false;
    for (std::uint64_t b = first; b <= last && !missed; ++b) missed = m_blocks.count(b) == 0;
    m_reading_first = first;
    m_reading_last = last;
    if (missed) fetch_around(offset, length);
    ++m_reads;
    auto* cursor = static_cast<char*>(out);
    for (std::uint64_t b = first; b <= last; ++b) {
      Block& cached = m_blocks.at(b);
      cached.used = true;
      cached.last_read = m_reads;
      const std::vector<char>& data = cached.data;
      const std::uint64_t block_start = b * block;
      const std::uint64_t from = std::max(offset, block_start);
      const std::uint64_t to = std::min<std::uint64_t>(offset + length, block_start + data.size());
      if (to <= from) throw Error(ExitStatus::input_unreadable, m_name + ": short read at byte " + std::to_string(from));
      std::memcpy(cursor, data.data() + (from - block_start), to - from);
      cursor += to - from;
    }
  }

  const IoStats& stats() const override { return m_stats; }
  bool fetches_ahead() const override { return true; }
  std::uint64_t prefetch(const std::vector<ByteRange>& ranges) override { return prefetch_blocks(ranges); }

 private:
  struct Block {
    std::vector<char> data;
    std::uint64_t fetch = 0;      // which fetch brought it
    bool used = false;            // whether any read has wanted it
    std::uint64_t last_read = 0;  // the number of the last read that did
  };

  // Keeps the cache within max_cache_bytes once `incoming` more arrive: a
  // file whose metadata lies between thousands of large datasets would
  // otherwise keep a window of each, past the reader's memory limit. Blocks
  // no read wanted go first, then those read longest ago, down to half the
  // bound (so that this is rare); never those of the read in progress.
  void make_room(std::uint64_t incoming) {
    if (m_cached_bytes + incoming <= m_options.max_cache_bytes) return;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> candidates;  // (last read, block); unread first
    for (const auto& [number, cached] : m_blocks) {
      if (number >= m_reading_first && number <= m_reading_last) continue;
      candidates.emplace_back(cached.used ? cached.last_read : 0, number);
    }
    std::sort(candidates.begin(), candidates.end());
    const std::uint64_t target = m_options.max_cache_bytes / 2;
    for (const auto& [age, number] : candidates) {
      if (m_cached_bytes + incoming <= target) break;
      const auto it = m_blocks.find(number);
      m_cached_bytes -= it->second.data.size();
      m_blocks.erase(it);
    }
  }

  // A miss at [offset, offset + length): one request for its blocks and a
  // window around them. HDF5 writers put an object's metadata next to its
  // neighbours', before and after it (h5py writes a group's members one
  // after the other, each header before its data), so the window reaches
  // a quarter behind the miss and three quarters ahead. It doubles while
  // it pays: when the previous fetch brought blocks that a read then
  // wanted besides the miss itself; a fetch whose extra blocks went unread
  // (a miss among large data) starts again from the smallest window.
  void fetch_around(std::uint64_t offset, std::uint64_t length) {
    const std::uint64_t block = m_options.block_bytes;
    std::uint64_t paid = 0;
    for (std::uint64_t b = m_last_fetch_first; b < m_last_fetch_end; ++b) {
      if (b >= m_last_wanted_first && b <= m_last_wanted_last) continue;
      const auto it = m_blocks.find(b);
      if (it != m_blocks.end() && it->second.fetch == m_fetches && it->second.used) ++paid;
    }
    // (The first request counts as a fetch with no window of its own.)
    m_window = paid > 0 ? std::min<std::uint64_t>(std::max<std::uint64_t>(m_window, m_options.initial_window_bytes) * 2,
                                                  m_options.max_window_bytes)
                        : m_options.initial_window_bytes;
    const std::uint64_t behind = m_window / 4;
    std::uint64_t from = (offset > behind ? offset - behind : 0) / block;
    const std::uint64_t ahead = std::max<std::uint64_t>(length + m_options.miss_lookahead_bytes, m_window - behind);
    std::uint64_t to = (checked_add(offset, ahead) - 1) / block;  // the last block, inclusive
    to = std::min<std::uint64_t>(to, (m_size - 1) / block);
    // Held blocks at either end of the window are not fetched again; held
    // ones inside it are (one request beats two).
    while (from < to && m_blocks.count(from) > 0) ++from;
    while (to > from && m_blocks.count(to) > 0) --to;
    m_last_wanted_first = offset / block;
    m_last_wanted_last = (offset + length - 1) / block;
    fetch(from * block, (to - from + 1) * block);
  }

  // GETs [offset, offset + length) (clipped to the file) into the cache;
  // blocks already held keep what they hold.
  void fetch(std::uint64_t offset, std::uint64_t length) {
    if (m_size_known) length = offset < m_size ? std::min(length, m_size - offset) : 0;
    if (length == 0) return;
    Response response = request(offset, length);
    if (!m_size_known && response.status == 200 && response.received == 0) {
      // An empty file: nginx answers its Range with 200 and no body.
      m_size_known = true;
      return;
    }
    if (!m_size_known) {
      auto total = total_from_content_range(response.content_range);
      if (!total) fail("the server did not say how large the file is (no Content-Range)");
      m_size = *total;
      m_size_known = true;
      // An empty file has no byte 0 to give (S3: 416, "bytes */0"): it is
      // then judged like an empty local file, not as a network failure.
      if (response.status == 416) return;
    }
    make_room(response.received);
    ++m_fetches;
    m_last_fetch_first = offset / m_options.block_bytes;
    m_last_fetch_end = store(offset, response, m_fetches);
  }

  // Caches the blocks of `response`, fetched from `offset` (block-aligned),
  // as fetch number `fetch` (0: a prefetch); blocks already held keep what
  // they hold. Only whole blocks, or the file's last one, are cached.
  // Returns the block after the last one the body covered.
  std::uint64_t store(std::uint64_t offset, Response& response, std::uint64_t fetch) {
    const std::uint64_t block = m_options.block_bytes;
    std::uint64_t end = offset / block;
    std::uint64_t at = offset;
    for (std::vector<char>& part : response.body) {
      const std::uint64_t take = part.size();
      if (take < block && at + take < m_size) break;
      end = at / block + 1;
      auto [it, added] = m_blocks.try_emplace(at / block);
      at += take;
      if (!added) continue;
      it->second.fetch = fetch;
      it->second.data = std::move(part);
      m_cached_bytes += take;
    }
    return end;
  }

  // prefetch(): the blocks not yet held, in runs of adjacent ones (each at
  // most max_window_bytes), fetched with up to max_concurrent_requests
  // requests in flight on one libcurl multi handle, whose connections stay
  // open for the next round. What fails is left for read() to fetch (with
  // its retries and its errors), so nothing here throws.
  std::uint64_t prefetch_blocks(const std::vector<ByteRange>& ranges) {
    if (!m_size_known || m_size == 0) return 0;
    const std::uint64_t block = m_options.block_bytes;
    std::vector<std::uint64_t> wanted;
    for (const ByteRange& range : ranges) {
      if (range.length == 0 || range.offset >= m_size) continue;
      const std::uint64_t last = (std::min(range.offset + std::min(range.length, m_size), m_size) - 1) / block;
      for (std::uint64_t b = range.offset / block; b <= last; ++b) {
        if (m_blocks.count(b) == 0) wanted.push_back(b);
      }
    }
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    if (wanted.empty()) return 0;
    // Never more than the cache may hold: a prefetch must not evict what
    // it brought itself.
    const std::uint64_t room = m_options.max_cache_bytes / 2;
    if (wanted.size() * block > room) wanted.resize(room / block);
    // Blocks close together go in one request, with what lies between
    // (a request costs a round trip, a few more KiB almost nothing), up to
    // max_window_bytes a request.
    std::vector<ByteRange> runs;
    const std::uint64_t longest = std::max<std::uint64_t>(1, m_options.max_window_bytes / block);
    const std::uint64_t gap = m_options.prefetch_gap_bytes / block;
    for (std::size_t i = 0; i < wanted.size();) {
      std::size_t j = i + 1;
      while (j < wanted.size() && wanted[j] - wanted[j - 1] <= gap + 1 && wanted[j] - wanted[i] < longest) ++j;
      const std::uint64_t offset = wanted[i] * block;
      runs.push_back({offset, std::min<std::uint64_t>((wanted[j - 1] - wanted[i] + 1) * block, m_size - offset)});
      i = j;
    }
    std::uint64_t incoming = 0;
    for (const ByteRange& run : runs) incoming += run.length;
    make_room(incoming);
    fetch_concurrently(runs);
    return incoming;
  }

  struct Transfer {
    CURL* handle = nullptr;
    ByteRange range;
    Response response;
    HeaderList headers;
    std::string user_password;
    std::string range_text;
  };

  void fetch_concurrently(const std::vector<ByteRange>& runs) {
    if (m_multi == nullptr) {
      m_multi = curl().multi_init();
      if (m_multi == nullptr) return;
    }
    const auto start = Clock::now();
    std::vector<std::unique_ptr<Transfer>> active;
    std::size_t next = 0;
    const auto begin = [&](const ByteRange& run) {
      auto transfer = std::make_unique<Transfer>();
      if (m_idle.empty()) {
        transfer->handle = curl().easy_init();
        if (transfer->handle == nullptr) return false;
      } else {
        transfer->handle = m_idle.back();
        m_idle.pop_back();
      }
      transfer->range = run;
      transfer->range_text = std::to_string(run.offset) + "-" + std::to_string(run.offset + run.length - 1);
      transfer->response.body_limit = run.length;
      transfer->response.part_bytes = m_options.block_bytes;
      configure(transfer->handle, transfer->range_text, transfer->response, timeout_within_deadline(),
                transfer->headers, transfer->user_password);
      spdlog::debug("{}: GET bytes {} (prefetch)", m_name, transfer->range_text);
      curl().multi_add_handle(m_multi, transfer->handle);
      active.push_back(std::move(transfer));
      ++m_stats.requests;
      return true;
    };
    try {
      while (next < runs.size() && active.size() < m_options.max_concurrent_requests && begin(runs[next])) ++next;
      while (!active.empty()) {
        int running = 0;
        if (curl().multi_perform(m_multi, &running) != CURLM_OK) break;
        int left = 0;
        while (CURLMsg* message = curl().multi_info_read(m_multi, &left)) {
          if (message->msg != CURLMSG_DONE) continue;
          const auto it = std::find_if(active.begin(), active.end(),
                                       [&](const auto& t) { return t->handle == message->easy_handle; });
          if (it == active.end()) continue;
          Transfer& done = **it;
          m_stats.bytes_read += done.response.received;
          if (message->data.result == CURLE_OK && done.response.status == 206 &&
              done.response.received == done.range.length) {
            store(done.range.offset, done.response, 0);
          } else {
            spdlog::debug("{}: prefetch of bytes {} failed ({}, HTTP {}): left to the reads", m_name,
                          done.range_text, curl().easy_strerror(message->data.result), done.response.status);
          }
          curl().multi_remove_handle(m_multi, done.handle);
          m_idle.push_back(done.handle);
          active.erase(it);
          if (next < runs.size() && begin(runs[next])) ++next;
        }
        if (active.empty()) break;
        curl().multi_poll(m_multi, nullptr, 0, 100, nullptr);
      }
    } catch (const Error& error) {
      spdlog::debug("{}: prefetch stopped: {}", m_name, error.what());  // the deadline: read() reports it
    }
    for (auto& transfer : active) {
      curl().multi_remove_handle(m_multi, transfer->handle);
      m_idle.push_back(transfer->handle);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    m_stats.seconds += seconds;
    const std::size_t lanes = std::max<std::size_t>(1, m_options.max_concurrent_requests);
    m_stats.round_trips += (next + lanes - 1) / lanes;
    spdlog::debug("{}: prefetched {} ranges in {:.3f} s", m_name, next, seconds);
  }

  Response request(std::uint64_t offset, std::uint64_t length) {
    const std::string range = std::to_string(offset) + "-" + std::to_string(offset + length - 1);
    auto backoff = m_options.first_backoff;
    for (int attempt = 1;; ++attempt) {
      const auto timeout = timeout_within_deadline();
      Response response;
      response.body_limit = length;
      response.part_bytes = m_options.block_bytes;
      spdlog::debug("{}: GET bytes {}", m_name, range);
      const auto start = Clock::now();
      const CURLcode code = perform(range, response, timeout);
      m_stats.seconds += std::chrono::duration<double>(Clock::now() - start).count();
      ++m_stats.requests;
      ++m_stats.round_trips;
      m_stats.bytes_read += response.received;

      if (response.refused_full_body) {
        fail("the server ignores Range requests and sends the whole file; refusing to download it");
      }
      std::string why;
      bool retry = false;
      if (!response.refused_address.empty()) {
        fail("refusing to connect to the link-local address " + response.refused_address +
             " (cloud metadata and credential endpoints; --allow-link-local permits it)");
      } else if (code == CURLE_OK && response.status >= 300 && response.status < 400 &&
                 !response.location.empty()) {
        follow_redirect(response.location);
        --attempt;  // a redirect is not a failed attempt
        continue;
      } else if (code != CURLE_OK) {
        why = curl().easy_strerror(code);
        retry = retryable(code);
      } else if (response.status == 206 && response.received == expected_length(response, offset, length)) {
        return response;
      } else if (response.status == 206) {
        why = "short response (" + std::to_string(response.received) + " of " +
              std::to_string(expected_length(response, offset, length)) + " bytes)";
        retry = true;
      } else if (response.status == 403 || response.status == 401) {
        fail("access denied (HTTP " + std::to_string(response.status) + ")");
      } else if (response.status == 404) {
        fail("not found (HTTP 404)");
      } else if (response.status == 200 && response.received == 0 && offset == 0 && !m_size_known) {
        return response;  // the file is empty
      } else if (response.status == 416) {
        if (offset == 0 && !m_size_known && total_from_content_range(response.content_range) == 0) {
          return response;  // the file is empty
        }
        fail("the server refused the byte range (HTTP 416)");
      } else {
        why = "HTTP " + std::to_string(response.status);
        retry = retryable_status(response.status);
      }
      if (!retry || attempt >= m_options.max_attempts) fail(why);
      std::uniform_int_distribution<long> jitter(0, backoff.count());
      const auto wait = backoff + std::chrono::milliseconds(jitter(m_random));
      if (m_options.deadline && Clock::now() + wait >= *m_options.deadline) {
        fail(why + "; time limit reached before another attempt");
      }
      spdlog::debug("{}: {} on bytes {}; retry {} in {} ms", m_name, why, range, attempt, wait.count());
      std::this_thread::sleep_for(wait);
      backoff *= 2;
    }
  }

  // Redirects are followed only within the host first asked (a few times):
  // a URL given to the tool must not lead it, signed, to another host.
  void follow_redirect(const std::string& location) {
    constexpr int kMaxRedirects = 5;
    std::string target = location;
    if (target.rfind("/", 0) == 0) {
      // Absolute path on the same origin.
      const auto scheme_end = m_url.find("://");
      const auto path_start = m_url.find('/', scheme_end + 3);
      target = m_url.substr(0, path_start) + target;
    }
    if (host_of(target).empty() || host_of(target) != host_of(m_url)) {
      fail("redirected to another host (" + printable(redact_url(target)) + "): not followed");
    }
    if (++m_redirects > kMaxRedirects) fail("more than 5 redirects");
    spdlog::debug("{}: redirected within the host", m_name);
    m_url = target;
  }

  // What a 206 answer to bytes [offset, offset + length) must hold: the
  // range, cut at the end of the file (which the first answer tells).
  std::uint64_t expected_length(const Response& response, std::uint64_t offset,
                                std::uint64_t length) const {
    std::uint64_t total = m_size;
    if (!m_size_known) total = total_from_content_range(response.content_range).value_or(0);
    if (total == 0 || offset >= total) return length;
    return std::min(length, total - offset);
  }

  // The request timeout, cut to what is left before the deadline.
  std::chrono::milliseconds timeout_within_deadline() const {
    if (!m_options.deadline) return m_options.request_timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*m_options.deadline - Clock::now());
    if (left.count() <= 0) fail("time limit reached while reading the file");
    return std::min(m_options.request_timeout, left);
  }

  CURLcode perform(const std::string& range, Response& response, std::chrono::milliseconds timeout) {
    HeaderList headers;
    std::string user_password;
    configure(m_curl, range, response, timeout, headers, user_password);
    return curl().easy_perform(m_curl);
  }

  // Sets `handle` up for a GET of `range` into `response`; `headers` and
  // `user_password` must live as long as the transfer.
  void configure(CURL* handle, const std::string& range, Response& response, std::chrono::milliseconds timeout,
                 HeaderList& headers, std::string& user_password) {
    if (!m_options.aws_sigv4.empty() && m_options.credentials) {
      std::vector<std::string> signed_headers;
      m_options.credentials(user_password, signed_headers);
      for (const auto& header : signed_headers) headers.add(header);
    }
    curl().easy_reset(handle);
    curl().easy_setopt(handle, CURLOPT_URL, m_url.c_str());
    curl().easy_setopt(handle, CURLOPT_HTTPGET, 1L);
    curl().easy_setopt(handle, CURLOPT_RANGE, range.c_str());
    // Redirects are ours to judge (follow_redirect).
    curl().easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    curl().easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    if (!m_options.allow_link_local) {
      curl().easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, open_socket_refusing_link_local);
      curl().easy_setopt(handle, CURLOPT_OPENSOCKETDATA, &response);
    }
    // A server that trickles is given up on like a silent one, then retried
    // within the deadline.
    curl().easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, m_options.low_speed_bytes_per_second);
    curl().easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, static_cast<long>(m_options.low_speed_time.count()));
    curl().easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_options.connect_timeout.count()));
    curl().easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    curl().easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
    curl().easy_setopt(handle, CURLOPT_HEADERDATA, &response);
    curl().easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
    curl().easy_setopt(handle, CURLOPT_WRITEDATA, &response);
    if (headers.list) curl().easy_setopt(handle, CURLOPT_HTTPHEADER, headers.list);
    if (!m_options.aws_sigv4.empty()) {
      curl().easy_setopt(handle, CURLOPT_AWS_SIGV4, m_options.aws_sigv4.c_str());
      curl().easy_setopt(handle, CURLOPT_USERPWD, user_password.c_str());
    }
    if (!m_options.ca_bundle.empty()) curl().easy_setopt(handle, CURLOPT_CAINFO, m_options.ca_bundle.c_str());
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ExitStatus::input_unreadable, m_name + ": " + why);
  }

  std::string m_url;
  std::string m_name;
  HttpOptions m_options;
  CURL* m_curl = nullptr;
  CURLM* m_multi = nullptr;      // prefetch's transfers, made on first use
  std::vector<CURL*> m_idle;     // its easy handles between transfers
  std::uint64_t m_size = 0;
  bool m_size_known = false;
  std::map<std::uint64_t, Block> m_blocks;
  std::uint64_t m_fetches = 0;            // fetches made so far; the last one's number
  std::uint64_t m_last_fetch_first = 0;   // blocks the last fetch brought: [first, end)
  std::uint64_t m_last_fetch_end = 0;
  std::uint64_t m_last_wanted_first = 0;  // and the blocks its miss wanted
  std::uint64_t m_last_wanted_last = 0;
  std::uint64_t m_window = 0;
  std::uint64_t m_cached_bytes = 0;   // what m_blocks holds
  std::uint64_t m_reads = 0;          // reads served so far
  std::uint64_t m_reading_first = 0;  // the blocks of the read in progress
  std::uint64_t m_reading_last = 0;
  int m_redirects = 0;
  std::mt19937 m_random;
  IoStats m_stats;
  ReadFootprint m_wanted;
};

}  // namespace

std::unique_ptr<ByteSource> open_http(const std::string& url, const std::string& display_name,
                                      const HttpOptions& options) {
  return std::make_unique<HttpSource>(url, display_name, options);
}

std::string redact_url(const std::string& url) {
  std::string out = url;
  const auto query = out.find('?');
  if (query != std::string::npos) out = out.substr(0, query) + "?<redacted>";
  // user:password@ in the authority (RFC 3986 userinfo).
  const auto scheme_end = out.find("://");
  if (scheme_end != std::string::npos) {
    const auto authority = scheme_end + 3;
    const auto authority_end = out.find_first_of("/?#", authority);
    const auto at = out.rfind('@', authority_end == std::string::npos ? std::string::npos : authority_end - 1);
    if (at != std::string::npos && at >= authority && (authority_end == std::string::npos || at < authority_end)) {
      out = out.substr(0, authority) + "<redacted>" + out.substr(at);
    }
  }
  return out;
}

}  // namespace h5ad_sizer::io
