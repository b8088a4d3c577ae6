#pragma once

#include <string>
#include <string_view>

namespace h5ad_sizer {

// `text` safe to print on one line of a terminal, a log or a JSON string:
// control characters (C0, DEL, C1) become \n, \r, \t or \xNN, and bytes
// that are not UTF-8 become \xNN; everything else is kept. Names come from
// files and URLs we do not trust: a newline would split a one-line error,
// an escape sequence would drive the reader's terminal. Idempotent.
std::string printable(std::string_view text);

}  // namespace h5ad_sizer
