#pragma once
// Comments from the systems site owners leave (API.md "Moving data in and out", `import
// --from`): each reader turns its format (docs/import-formats.md) into these records, in the
// file's order, and hands them to a ForeignSink. What they become in Plaudit is the sink's
// business (transfer/foreign_plan.hpp).
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::transfer {

// The systems read (API.md "Moving data in and out").
enum class Source { kDisqus, kWordpress, kWaline, kTwikoo };
std::optional<Source> ParseSource(std::string_view name);
std::string_view SourceName(Source s);

// A page (a Disqus thread, a WordPress post, a Waline or Twikoo page path).
struct ForeignThread {
  std::string key;    // the source's id of it (what comments name)
  std::string url;    // as the source has it: absolute, or a path (Waline, Twikoo)
  std::string title;  // "" when the source has none
  std::optional<int64_t> created_ms;
  bool deleted = false;
  bool alias = false;  // another key of a thread already given (not counted again)
  int64_t line = 0;    // where it is in the file (its record's number for JSON)
};

enum class ForeignStatus { kApproved, kPending, kSpam };
enum class TextFormat { kHtml, kMarkdown };

struct ForeignComment {
  std::string id;          // the source's id
  std::string thread;      // its thread's key (or, Waline and Twikoo, its page's path)
  std::string parent;      // the direct parent's id; "" for a top-level comment
  std::string thread_url;  // Twikoo, Waline: the page's URL or path, when the thread is implicit
  std::string author;      // the name shown
  std::string email;       // "" when none
  std::optional<int64_t> created_ms;  // nullopt: the source's time could not be read
  std::string text;
  bool text_cut = false;  // longer than the reader keeps
  TextFormat format = TextFormat::kHtml;
  ForeignStatus status = ForeignStatus::kApproved;
  bool deleted = false;
  std::string skip;  // why it is no comment to import (a pingback): skipped, with this reason
  int64_t line = 0;
};

class ForeignSink {
 public:
  virtual ~ForeignSink() = default;
  virtual Status Thread(ForeignThread thread) = 0;
  virtual Status Comment(ForeignComment comment) = 0;
};

// A file of one format read a piece at a time: each Step() reads a little more, handing what it
// completes to the sink; false once the file has been read. (The writing pass takes what a
// step gave before it reads on, so memory holds a step's records, not the file's.)
class ForeignStream {
 public:
  virtual ~ForeignStream() = default;
  virtual Result<bool> Step() = 0;
};
std::unique_ptr<ForeignStream> OpenForeign(Source source, std::istream& in, ForeignSink& sink);

// Reads a whole file of `source`'s format into `sink`. A file that is not of that format, not
// well-formed, or cut short is kInvalidArgument "line N: …" (before or after some records
// were handed over: the sink must not write until the whole file has been read once).
Status ReadForeign(Source source, std::istream& in, ForeignSink& sink);

// A field's text without the white space around it (what every format leaves there).
std::string Trimmed(std::string s);
// A URL or id of the file as a problem quotes it: at most 200 bytes (one thread's 1 MiB link
// was once copied into the problem of each of its comments), control characters as \xNN (it
// is printed to the operator's terminal).
std::string QuotedText(std::string_view text);
// The longest comment text a reader keeps (the rest is dropped and the comment marked
// text_cut; the importer's sanitiser and renderer refuse far less anyway).
inline constexpr size_t kMaxForeignText = size_t{1} << 20;
// `text` kept to kMaxForeignText bytes, cut between UTF-8 characters; true when it was cut.
bool CutForeignText(std::string& text);

// Per format (transfer/disqus.cpp, …).
std::unique_ptr<ForeignStream> OpenDisqus(std::istream& in, ForeignSink& sink);
std::unique_ptr<ForeignStream> OpenWordpress(std::istream& in, ForeignSink& sink);
std::unique_ptr<ForeignStream> OpenWaline(std::istream& in, ForeignSink& sink);
std::unique_ptr<ForeignStream> OpenTwikoo(std::istream& in, ForeignSink& sink);
Status ReadDisqus(std::istream& in, ForeignSink& sink);

}  // namespace plaudit::transfer
