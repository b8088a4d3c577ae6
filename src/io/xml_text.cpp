#include "xml_text.hpp"

#include <cstdint>
#include <cstdlib>

namespace h5ad_sizer::io {
namespace {

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The character a reference's name stands for, or false.
bool decode_reference(std::string_view name, std::string& out) {
  if (name == "amp") return out += '&', true;
  if (name == "lt") return out += '<', true;
  if (name == "gt") return out += '>', true;
  if (name == "quot") return out += '"', true;
  if (name == "apos") return out += '\'', true;
  if (name.size() < 2 || name[0] != '#') return false;
  const bool hex = name[1] == 'x' || name[1] == 'X';
  const std::string digits(name.substr(hex ? 2 : 1));
  if (digits.empty() || digits.size() > 8) return false;
  char* end = nullptr;
  const unsigned long code = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
  if (*end != '\0' || code == 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
  append_utf8(out, static_cast<std::uint32_t>(code));
  return true;
}

}  // namespace

std::string xml_unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '&') {
      const std::size_t semicolon = text.find(';', i + 1);
      if (semicolon != std::string_view::npos && semicolon - i <= 10 &&
          decode_reference(text.substr(i + 1, semicolon - i - 1), out)) {
        i = semicolon;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::string xml_element(std::string_view body, std::string_view tag, std::size_t from, std::size_t* next) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  if (next) *next = std::string_view::npos;
  const std::size_t start = body.find(open, from);
  if (start == std::string_view::npos) return "";
  const std::size_t end = body.find(close, start + open.size());
  if (end == std::string_view::npos) return "";
  if (next) *next = end + close.size();
  return xml_unescape(body.substr(start + open.size(), end - start - open.size()));
}

}  // namespace h5ad_sizer::io
