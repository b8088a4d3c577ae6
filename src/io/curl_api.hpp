#pragma once

#include <curl/curl.h>

// libcurl, loaded on first use rather than linked: its shared library brings
// OpenSSL, GnuTLS, Kerberos, LDAP and more, whose symbol relocation costs a
// local run more than its whole metadata walk (docs/benchmark.md). Only
// remote paths pay for it.
namespace h5ad_sizer::io {

struct CurlApi {
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_reset) easy_reset;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_cleanup) multi_cleanup;
  decltype(&curl_multi_setopt) multi_setopt;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_perform) multi_perform;
  decltype(&curl_multi_poll) multi_poll;
  decltype(&curl_multi_info_read) multi_info_read;
};

// Loads libcurl.so.4 and initialises it, once. Throws Error(usage_error)
// when the library is not installed.
const CurlApi& curl();

// Failures worth another attempt: refused or reset connections, timeouts,
// truncated answers, name lookups.
bool retryable(CURLcode code);

}  // namespace h5ad_sizer::io
