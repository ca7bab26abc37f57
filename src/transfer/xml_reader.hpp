#pragma once
// A streaming XML reader for the importers (expat): elements by their local names (a Disqus
// export's default namespace, WXR's wp: prefix of version 1.0, 1.1 or 1.2 all read the same),
// each element's own text handed over at its end, and the line of each start, so that a file of
// any size is read in constant memory and a problem is reported where it is.
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace plaudit::transfer {

// The longest text an element keeps (an imported comment's body): the rest is dropped and
// the element marked `cut`.
inline constexpr size_t kMaxElementText = size_t{1} << 20;

struct XmlAttribute {
  std::string_view name;  // local name
  std::string_view value;
};

class XmlHandler {
 public:
  virtual ~XmlHandler() = default;
  // `path`: the local names from the root to this element, itself last.
  virtual Status Start(const std::vector<std::string>& path,
                       const std::vector<XmlAttribute>& attributes, int64_t line) = 0;
  // The element's own character data (CDATA included), when it has no child elements; `cut`
  // when it was longer than kMaxElementText.
  virtual Status End(const std::vector<std::string>& path, std::string text, bool cut,
                     int64_t line) = 0;
};

// Reads all of `in`. A file that is not well-formed XML, or ends early, is kInvalidArgument
// "line N: …"; a handler's error stops the reading and is returned as it is.
Status ReadXml(std::istream& in, XmlHandler& handler);

}  // namespace plaudit::transfer
