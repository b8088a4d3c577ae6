#include "curl_api.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer::io {
namespace {

template <typename Function>
void bind(void* library, const char* name, Function& out) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) throw_usage(std::string("libcurl.so.4 lacks ") + name);
  out = reinterpret_cast<Function>(symbol);
}

CurlApi load() {
  void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw_usage(std::string("remote paths need libcurl (Debian package libcurl4): ") + dlerror());
  }
  CurlApi api{};
  bind(library, "curl_global_init", api.global_init);
  bind(library, "curl_easy_init", api.easy_init);
  bind(library, "curl_easy_cleanup", api.easy_cleanup);
  bind(library, "curl_easy_reset", api.easy_reset);
  bind(library, "curl_easy_setopt", api.easy_setopt);
  bind(library, "curl_easy_perform", api.easy_perform);
  bind(library, "curl_easy_getinfo", api.easy_getinfo);
  bind(library, "curl_easy_strerror", api.easy_strerror);
  bind(library, "curl_slist_append", api.slist_append);
  bind(library, "curl_slist_free_all", api.slist_free_all);
  bind(library, "curl_multi_init", api.multi_init);
  bind(library, "curl_multi_cleanup", api.multi_cleanup);
  bind(library, "curl_multi_setopt", api.multi_setopt);
  bind(library, "curl_multi_add_handle", api.multi_add_handle);
  bind(library, "curl_multi_remove_handle", api.multi_remove_handle);
  bind(library, "curl_multi_perform", api.multi_perform);
  bind(library, "curl_multi_poll", api.multi_poll);
  bind(library, "curl_multi_info_read", api.multi_info_read);
  api.global_init(CURL_GLOBAL_DEFAULT);
  return api;  // the library stays loaded for the life of the process
}

}  // namespace

const CurlApi& curl() {
  static std::once_flag once;
  static CurlApi api;
  std::call_once(once, [] { api = load(); });
  return api;
}

bool retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

}  // namespace h5ad_sizer::io
