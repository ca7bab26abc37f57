#pragma once
// `@name` mentions in a comment's text (API.md "Comment text", "Notifications"): where they
// are, for the Markdown renderer to mark the ones naming a thread's participants, and which
// names, for the notices (sql/outbox_fanout_readers.cpp). One rule of what a mention is for
// both.
// Usernames are [A-Za-z0-9_.-]{3,32} (API.md). A mention starts at the text's start or after a
// character that cannot be in a name (so an e-mail address is none); a name's trailing dots
// end a sentence ("@ann."), not the name.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace plaudit::text {

struct Mention {
  size_t at = 0;     // of the '@'
  size_t size = 0;   // '@' and the name
  std::string name;  // lower-cased (usernames are compared without case)
};

// Every mention in `text`, in order.
std::vector<Mention> FindMentions(std::string_view text);
// The distinct names mentioned, sorted: the first `limit` distinct ones in the text's order.
std::vector<std::string> MentionedNames(std::string_view text, size_t limit = 10);

}  // namespace plaudit::text
