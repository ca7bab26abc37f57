#pragma once
// A streaming XML reader for the importers (expat): elements by their local names (a Disqus
// export's default namespace, WXR's wp: prefix of version 1.0, 1.1 or 1.2 all read the same),
// each element's own text handed over at its end, and the line of each start, so that a file of
// any size is read in constant memory and a problem is reported where it is.
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace plaudit::transfer {

// The longest text an element keeps (an imported comment's body): the rest is dropped and
// the element marked `cut`.
inline constexpr size_t kMaxElementText = size_t{1} << 20;
// The deepest nesting read (Disqus and WXR need 5), and the most bytes between two things the
// parser hands over: a longer tag (an id of megabytes) is refused, as expat 2.5 parses such a
// token again for every piece fed (quadratic; fixed in 2.6).
inline constexpr size_t kMaxXmlDepth = 32;
inline constexpr int64_t kMaxXmlToken = int64_t{8} << 20;

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

// Reads `in` a piece at a time: each Step() parses the next 64 KiB, calling the handler for
// what it completes. A file that is not well-formed XML, or ends early, is kInvalidArgument
// "line N: …"; a handler's error stops the reading and is returned as it is.
class XmlStream {
 public:
  XmlStream(std::istream& in, XmlHandler& handler);
  ~XmlStream();
  XmlStream(const XmlStream&) = delete;
  XmlStream& operator=(const XmlStream&) = delete;
  // false once the whole file has been read.
  Result<bool> Step();

  struct State;  // the parser and what its callbacks share (xml_reader.cpp)

 private:
  std::istream& in_;
  std::unique_ptr<State> state_;
  bool done_ = false;
  int64_t fed_ = 0;  // bytes handed to the parser
};

// All of `in` through XmlStream.
Status ReadXml(std::istream& in, XmlHandler& handler);

}  // namespace plaudit::transfer
