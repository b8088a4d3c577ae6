#include "h5ad_sizer/io/http_client.hpp"

#include "curl_api.hpp"

#include <algorithm>
#include <cctype>
#include <memory>

namespace h5ad_sizer::io {
namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<HttpResponse*>(out)->body.append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* out) {
  auto* response = static_cast<HttpResponse*>(out);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    response->headers.clear();  // a new response (after 100 Continue)
    return size * count;
  }
  const auto colon = line.find(':');
  if (colon == std::string::npos) return size * count;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::size_t start = colon + 1;
  while (start < line.size() && line[start] == ' ') ++start;
  response->headers[name] = line.substr(start);
  return size * count;
}


}  // namespace

std::string HttpResponse::header(const std::string& lower_case_name) const {
  auto it = headers.find(lower_case_name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse http_exchange(const HttpRequest& request) {
  const CurlApi& api = curl();
  std::unique_ptr<CURL, decltype(api.easy_cleanup)> handle(api.easy_init(), api.easy_cleanup);
  HttpResponse response;
  if (!handle) {
    response.transport_error = "cannot initialise libcurl";
    return response;
  }
  CURL* easy = handle.get();
  curl_slist* headers = nullptr;
  for (const auto& header : request.headers) headers = api.slist_append(headers, header.c_str());
  std::unique_ptr<curl_slist, decltype(api.slist_free_all)> header_list(headers, api.slist_free_all);

  api.easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  api.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  api.easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  api.easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  api.easy_setopt(easy, CURLOPT_WRITEDATA, &response);
  api.easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  api.easy_setopt(easy, CURLOPT_HEADERDATA, &response);
  if (request.method == "POST") {
    api.easy_setopt(easy, CURLOPT_POST, 1L);
    api.easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.c_str());
    api.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method != "GET") {
    api.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (header_list) api.easy_setopt(easy, CURLOPT_HTTPHEADER, header_list.get());
  if (!request.aws_sigv4.empty()) {
    api.easy_setopt(easy, CURLOPT_AWS_SIGV4, request.aws_sigv4.c_str());
    api.easy_setopt(easy, CURLOPT_USERPWD, request.user_password.c_str());
  }
  if (!request.ca_bundle.empty()) api.easy_setopt(easy, CURLOPT_CAINFO, request.ca_bundle.c_str());

  const CURLcode code = api.easy_perform(easy);
  if (code != CURLE_OK) {
    response.transport_error = api.easy_strerror(code);
    response.retryable_transport = retryable(code);
    response.status = 0;
    return response;
  }
  api.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace h5ad_sizer::io
