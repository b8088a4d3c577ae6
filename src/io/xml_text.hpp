#pragma once

#include <string>
#include <string_view>

// Just enough XML for what AWS answers: the text of an element, found by
// its tag. Not a parser: AWS's bodies are flat, tags never carry
// attributes we need, and text is entity-escaped.
namespace h5ad_sizer::io {

// The text between the first <tag> at or after `from` and its </tag>,
// unescaped; "" when absent. `next`, when given, is set past the closing
// tag (npos when absent), to walk repeated elements.
std::string xml_element(std::string_view body, std::string_view tag, std::size_t from = 0,
                        std::size_t* next = nullptr);

// &amp; &lt; &gt; &quot; &apos; and numeric references (as UTF-8); an
// unknown or broken reference is kept as it stands.
std::string xml_unescape(std::string_view text);

}  // namespace h5ad_sizer::io
