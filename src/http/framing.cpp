#include "http/framing.hpp"

#include <vector>

namespace plaudit::http {

Framing TransferFraming(const RawRequest& request) {
  auto [begin, end] = request.equal_range(beast::http::field::transfer_encoding);
  if (begin == end) {
    return Framing::kNoTransferEncoding;
  }
  // HTTP/1.0 has no transfer codings: a message with one has faulty framing (§6.1).
  if (request.version() < 11) {
    return Framing::kUnknowable;
  }
  // Every field line, in order, is one list (RFC 9110 §5.3).
  std::vector<std::string_view> codings;
  for (auto it = begin; it != end; ++it) {
    std::string_view list(it->value().data(), it->value().size());
    while (true) {
      const size_t comma = list.find(',');
      std::string_view item = TrimOws(list.substr(0, comma));
      if (!item.empty()) {
        codings.push_back(item);
      }
      if (comma == std::string_view::npos) {
        break;
      }
      list.remove_prefix(comma + 1);
    }
  }
  auto is_chunked = [](std::string_view c) { return beast::iequals(c, "chunked"); };
  if (codings.empty() || !is_chunked(codings.back())) {
    return Framing::kUnknowable;
  }
  size_t chunked = 0;
  for (std::string_view c : codings) {
    chunked += is_chunked(c) ? 1 : 0;
  }
  if (chunked > 1) {
    return Framing::kUnknowable;  // chunked must be applied once (§7)
  }
  return codings.size() == 1 ? Framing::kChunked : Framing::kUnsupported;
}

}  // namespace plaudit::http
