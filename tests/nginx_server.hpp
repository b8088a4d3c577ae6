#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "test_support.hpp"

namespace h5ad_sizer::testing {

// N distinct free TCP ports on 127.0.0.1, the kernel's choice. Every socket
// stays bound until all N are picked: closed one at a time, the kernel may hand
// out the same port twice (it did in CI: nginx refused a "duplicate listen").
template <std::size_t N>
std::array<int, N> free_ports() {
  std::array<int, N> fds{};
  std::array<int, N> ports{};
  fds.fill(-1);
  bool ok = true;
  for (std::size_t i = 0; i < N && ok; ++i) {
    fds[i] = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ok = fds[i] >= 0 && ::bind(fds[i], reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
         ::getsockname(fds[i], reinterpret_cast<sockaddr*>(&address), &length) == 0;
    ports[i] = ntohs(address.sin_port);
  }
  for (const int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
  if (!ok) throw std::runtime_error("no free port");
  return ports;
}

inline bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

// What /credentials answers, like the ECS/Batch container endpoint.
inline constexpr const char* kContainerCredentials =
    "{\"AccessKeyId\":\"AKIDCONTAINER\",\"SecretAccessKey\":\"container-secret\","
    "\"Token\":\"container-session\",\"Expiration\":\"2099-01-01T00:00:00Z\"}";

// Debian's nginx on loopback, serving `root` over HTTP and HTTPS (a
// self-signed certificate for 127.0.0.1 made here), with:
//   /norange/...  the same files with Range support turned off
//   /forbidden/... 403, /unavailable/... 503
//   /credentials   kContainerCredentials for "Authorization: Bearer test-token"
//   /empty.h5ad    a file of 0 bytes
//   /moved/same-host.h5ad, /moved/other-host.h5ad
//                  302 to /example.h5ad on this host, and on "localhost"
// Every request is logged to access_log() as "METHOD URI STATUS".
class NginxServer {
 public:
  explicit NginxServer(const std::string& root) {
    const std::string prefix = m_dir.file("");
    const auto ports = free_ports<2>();
    m_http_port = ports[0];
    m_https_port = ports[1];
    const std::string make_cert = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                                  "-addext subjectAltName=IP:127.0.0.1 -keyout " +
                                  m_dir.file("key.pem") + " -out " + m_dir.file("cert.pem") +
                                  " >/dev/null 2>&1";
    if (std::system(make_cert.c_str()) != 0) throw std::runtime_error("openssl failed");
    std::ofstream(m_dir.file("empty.h5ad")).flush();
    std::ofstream(m_dir.file("nginx.conf"))
        << "daemon off; master_process off; worker_processes 1;\n"
        << "error_log " << m_dir.file("error.log") << " warn; pid " << m_dir.file("nginx.pid") << ";\n"
        << "events { worker_connections 64; }\n"
        << "http {\n"
        << "  log_format brief '$request_method $request_uri $status';\n"
        << "  access_log " << m_dir.file("access.log") << " brief;\n"
        << "  client_body_temp_path " << prefix << "; proxy_temp_path " << prefix << ";\n"
        << "  fastcgi_temp_path " << prefix << "; uwsgi_temp_path " << prefix << "; scgi_temp_path "
        << prefix << ";\n"
        << "  types { application/octet-stream h5ad; }\n"
        << "  server {\n"
        << "    listen 127.0.0.1:" << m_http_port << ";\n"
        << "    listen 127.0.0.1:" << m_https_port << " ssl;\n"
        << "    ssl_certificate " << m_dir.file("cert.pem") << "; ssl_certificate_key "
        << m_dir.file("key.pem") << ";\n"
        << "    root " << root << ";\n"
        << "    location /norange/ { alias " << root << "/; max_ranges 0; }\n"
        << "    location /forbidden/ { return 403; }\n"
        << "    location /unavailable/ { return 503; }\n"
        << "    location = /empty.h5ad { alias " << m_dir.file("empty.h5ad") << "; }\n"
        << "    location = /moved/same-host.h5ad { return 302 /example.h5ad; }\n"
        << "    location = /moved/other-host.h5ad { return 302 http://localhost:" << m_http_port
        << "/example.h5ad; }\n"
        << "    location = /credentials {\n"
        << "      default_type application/json;\n"
        << "      if ($http_authorization != \"Bearer test-token\") { return 401; }\n"
        << "      return 200 '" << kContainerCredentials << "';\n"
        << "    }\n"
        << "  }\n"
        << "}\n";
    m_process = std::make_unique<ChildProcess>(std::vector<std::string>{
        "/usr/sbin/nginx", "-p", prefix, "-e", m_dir.file("error.log"), "-c", m_dir.file("nginx.conf")});
    m_process->wait_until(
        [this] { return accepts_connections(m_http_port) && accepts_connections(m_https_port); },
        std::chrono::seconds(10), "nginx",
        [this] { return "nginx exited: " + read_text(m_dir.file("error.log")); });
  }
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  std::string http(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_http_port) + path;
  }
  std::string https(const std::string& path) const {
    return "https://127.0.0.1:" + std::to_string(m_https_port) + path;
  }
  std::string certificate() const { return m_dir.file("cert.pem"); }
  std::string access_log() const { return read_text(m_dir.file("access.log")); }
  void clear_access_log() const { std::ofstream(m_dir.file("access.log"), std::ios::trunc); }

 private:
  ScopedTempDir m_dir;
  int m_http_port = 0;
  int m_https_port = 0;
  std::unique_ptr<ChildProcess> m_process;  // after m_dir: stopped before it is removed
};

}  // namespace h5ad_sizer::testing
