// The Redis key builders: the exact names docs/architecture.md lists (the data in a running
// Redis and the Lua scripts depend on them), whatever way they are assembled; and the key
// tables (docs/architecture.md's and keys.hpp's) row for row against keys::kAllKeys.
#include "redis/keys.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "redis/sessions.hpp"

namespace plaudit::redis::keys {
namespace {

TEST(Keys, CatJoinsTextAndNumbersInOrder) {
  EXPECT_EQ(Cat(), "");
  EXPECT_EQ(Cat("a", Num(0), "", Num(-7), std::string_view("z")), "a0-7z");
  EXPECT_EQ(Cat(Num(std::numeric_limits<int64_t>::max())), "9223372036854775807");
  EXPECT_EQ(Cat(Num(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
}

TEST(Keys, ShardTaggedKeysKeepTheirDocumentedNames) {
  EXPECT_EQ(LikeTag(0), "{l0}");
  EXPECT_EQ(LikeTag(255), "{l255}");
  EXPECT_EQ(Article(42), "pl:art:{l42}:42");
  EXPECT_EQ(Article(256 + 3), "pl:art:{l3}:259");
  EXPECT_EQ(ArticleBody(259), "pl:art:{l3}:259:body");
  EXPECT_EQ(ArticleFloor(259), "pl:art:{l3}:259:floor");
  EXPECT_EQ(CacheMarks(3), "pl:cpend:{l3}");
  EXPECT_EQ(PublishedListVersion(259), "pl:arts:{pub}:v:259");
  EXPECT_EQ(LikeBucket(3, "a259:s"), "pl:lk:{l3}:a259:s");
  EXPECT_EQ(LikeBig(3, "a259"), "pl:lb:{l3}:a259");
  EXPECT_EQ(LikeCount(3, "c1027"), "pl:lc:{l3}:c1027");
  EXPECT_EQ(LikePending(3, "a259:12"), "pl:lp:{l3}:a259:12");
  EXPECT_EQ(LikeInFlight(3, "a259:12"), "pl:lf:{l3}:a259:12");
  EXPECT_EQ(LikeDirty(3), "pl:ld:{l3}");
  EXPECT_EQ(LikeInFlightSet(3), "pl:lfi:{l3}");
  EXPECT_EQ(LikeSeq(3), "pl:lseq:{l3}");
  EXPECT_EQ(LikeEpoch(3), "pl:lep:{l3}");
  EXPECT_EQ(LikeRecoveryMark(3), "pl:lrm:{l3}");
  EXPECT_EQ(LikeBirthMark(3), "pl:lbm:{l3}");
  EXPECT_EQ(Comment(1027), "pl:cm:{l3}:1027");
  EXPECT_EQ(CommentMeta(259), "pl:cmeta:{l3}:259");
  EXPECT_EQ(CommentsByTime(259), "pl:ct:{l3}:259");
  EXPECT_EQ(CommentsByLikes(259), "pl:ch:{l3}:259");
  EXPECT_EQ(RepliesByTime(1027), "pl:crt:{l3}:1027");
  EXPECT_EQ(RepliesByLikes(1027), "pl:crh:{l3}:1027");
  EXPECT_EQ(ListVersion(3), "pl:lv:{l3}");
  EXPECT_EQ(ListViewsVersion(3), "pl:lvw:{l3}");
}

TEST(Keys, UnshardedKeysKeepTheirDocumentedNames) {
  EXPECT_EQ(Session("ab12"), "pl:sess:ab12");
  EXPECT_EQ(UserSessions(17), "pl:usess:17");
  EXPECT_EQ(InvalidationAck("n1"), "pl:iack:n1");
  EXPECT_EQ(PublishedList("all"), "pl:arts:{pub}:all");
  EXPECT_EQ(PublishedListRebuild("post"), "pl:arts:{pub}:post:new");
  EXPECT_EQ(kPublishedListsVersion, "pl:lv:{pub}");
}

// The recoveries drop caches by these two tests (like_recovery.cpp, article_cache.cpp).
TEST(Keys, CacheKeysAreToldFromTheOthers) {
  EXPECT_TRUE(IsArticleCache(Article(259)));
  EXPECT_TRUE(IsArticleCache(ArticleBody(259)));
  EXPECT_FALSE(IsArticleCache(PublishedList("all")));
  EXPECT_EQ(CachedShardOf(LikeBucket(3, "a259:s")), 3);
  EXPECT_EQ(CachedShardOf(LikeBig(3, "a259")), 3);
  EXPECT_EQ(CachedShardOf(RepliesByLikes(1027)), 3);
  EXPECT_EQ(CachedShardOf(ListVersion(3)), 3);  // dropped with the shard: born again
  EXPECT_EQ(CachedShardOf(ListViewsVersion(3)), 3);
  EXPECT_EQ(CachedShardOf(kPublishedListsVersion), -1);
  EXPECT_EQ(CachedShardOf(LikePending(3, "a259:s")), -1);
  EXPECT_EQ(CachedShardOf(Article(259)), -1);
  EXPECT_EQ(CachedShardOf("pl:lk:{x3}:a259:s"), -1);
}

// view_claim.lua moves ids between these in one script: one hash slot, one tag.
TEST(Keys, ViewFlushKeysShareOneHashTag) {
  EXPECT_EQ(kViewsDirty, "pl:vd:{views}");
  EXPECT_EQ(kViewsInFlight, "pl:vf:{views}");
  EXPECT_EQ(kViewsSeq, "pl:vseq:{views}");
}

// --- The key tables against kAllKeys ---
//
// A table row's key column reads like `pl:art:{lN}:<id>:body`: {lN} (the shard tag) and
// <...> are variable, the rest is fixed. Its shape is the fixed text before the first
// variable part and after the last one, which is what kAllKeys holds for each key the code
// builds; the tables and kAllKeys must hold the same shapes, each once.

using Shape = std::pair<std::string, std::string>;  // head, tail

Shape ShapeOf(std::string_view key) {
  const size_t tag = key.find("{lN}");
  const size_t arg = key.find('<');
  const size_t first = std::min(tag, arg);
  if (first == std::string_view::npos) {
    return {std::string(key), ""};
  }
  const size_t last_tag = key.rfind("{lN}");
  const size_t last_arg = key.rfind('>');
  size_t after = 0;
  if (last_tag != std::string_view::npos) {
    after = last_tag + 4;
  }
  if (last_arg != std::string_view::npos) {
    after = std::max(after, last_arg + 1);
  }
  return {std::string(key.substr(0, first)), std::string(key.substr(after))};
}

std::string Describe(const Shape& s) {
  return s.second.empty() ? s.first : s.first + "…" + s.second;
}

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(PLAUDIT_SOURCE_DIR) + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Row {
  std::string key;
  int line;
};

// docs/architecture.md: the table of "## Redis key schema"; a key cell may hold several
// keys, each in backticks.
std::vector<Row> DocTableKeys(const std::string& doc) {
  std::vector<Row> rows;
  std::istringstream in(doc);
  std::string line;
  bool in_section = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.starts_with("## ")) {
      in_section = line == "## Redis key schema";
    }
    if (!in_section || !line.starts_with("| `pl:")) {
      continue;
    }
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (size_t open = cell.find('`'); open != std::string::npos;) {
      const size_t close = cell.find('`', open + 1);
      const std::string key = cell.substr(open + 1, close - open - 1);
      if (key.starts_with("pl:")) {
        rows.push_back({key, n});
      }
      open = cell.find('`', close + 1);
    }
  }
  return rows;
}

// keys.hpp: the comment table at its top, one key per row that starts with "// | pl:".
std::vector<Row> HeaderTableKeys(const std::string& header) {
  std::vector<Row> rows;
  std::istringstream in(header);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.starts_with("// | pl:")) {
      continue;
    }
    rows.push_back({line.substr(5, line.find(' ', 5) - 5), n});
  }
  return rows;
}

// Every failure at once, so one run names every row to add or remove.
void ExpectTableMatchesCode(const std::vector<Row>& rows, const std::string& where) {
  std::set<Shape> code;
  for (const KeyShape& k : kAllKeys) {
    EXPECT_TRUE(code.emplace(std::string(k.head), std::string(k.tail)).second)
        << "kAllKeys lists " << Describe({std::string(k.head), std::string(k.tail)}) << " twice";
  }
  std::map<Shape, int> table;
  for (const Row& row : rows) {
    const Shape shape = ShapeOf(row.key);
    EXPECT_TRUE(code.contains(shape))
        << where << ":" << row.line << ": `" << row.key << "` (" << Describe(shape)
        << ") is no key the code builds (keys::kAllKeys): a stale row?";
    EXPECT_TRUE(table.emplace(shape, row.line).second)
        << where << ":" << row.line << ": `" << row.key << "` has the shape of the row at line "
        << table[shape];
  }
  for (const Shape& shape : code) {
    EXPECT_TRUE(table.contains(shape))
        << where << " has no row for `" << Describe(shape) << "` (in keys::kAllKeys)";
  }
}

TEST(KeyTable, ARowsShapeIsItsFixedTextAroundTheVariableParts) {
  EXPECT_EQ(ShapeOf("pl:seq:article"), Shape("pl:seq:article", ""));
  EXPECT_EQ(ShapeOf("pl:vd:{views}"), Shape("pl:vd:{views}", ""));
  EXPECT_EQ(ShapeOf("pl:ld:{lN}"), Shape("pl:ld:", ""));
  EXPECT_EQ(ShapeOf("pl:rl:<scope>:<id>"), Shape("pl:rl:", ""));
  EXPECT_EQ(ShapeOf("pl:art:{lN}:<id>:body"), Shape("pl:art:", ":body"));
  EXPECT_EQ(ShapeOf("pl:lk:{lN}:<t>:s"), Shape("pl:lk:", ":s"));
  EXPECT_EQ(ShapeOf("pl:arts:{pub}:v:<id>"), Shape("pl:arts:{pub}:v:", ""));
}

TEST(KeyTable, ArchitectureDocListsEveryKeyTheCodeBuildsAndNoOther) {
  const std::vector<Row> rows = DocTableKeys(ReadSource("docs/architecture.md"));
  ASSERT_FALSE(rows.empty()) << "no \"## Redis key schema\" table in docs/architecture.md";
  ExpectTableMatchesCode(rows, "docs/architecture.md");
}

TEST(KeyTable, KeysHeaderTableListsEveryKeyTheCodeBuildsAndNoOther) {
  const std::vector<Row> rows = HeaderTableKeys(ReadSource("src/redis/keys.hpp"));
  ASSERT_FALSE(rows.empty()) << "no key table at the top of src/redis/keys.hpp";
  ExpectTableMatchesCode(rows, "src/redis/keys.hpp");
}

// The line up to its comment: "--" in Lua; "//" in C++, unless it is a URL's ("redis://").
std::string WithoutComment(const std::string& line, bool lua) {
  if (lua) {
    return line.substr(0, line.find("--"));
  }
  for (size_t at = line.find("//"); at != std::string::npos; at = line.find("//", at + 2)) {
    if (at == 0 || line[at - 1] != ':') {
      return line.substr(0, at);
    }
  }
  return line;
}

// A key named outside keys.hpp's constants (a Lua script building one from a declared key's
// tag, a SCAN pattern, a channel) or a constant left out of kAllKeys: each `pl:<name>` in the
// code of src/ must begin a key of kAllKeys. Comments are skipped (they name old keys).
TEST(KeyTable, EveryKeyNameInTheSourcesIsInAllKeys) {
  const std::regex name(R"(\bpl:[a-z]+)");
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(PLAUDIT_SOURCE_DIR) + "/src")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".lua") {
      continue;
    }
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string code = WithoutComment(line, ext == ".lua");
      for (std::sregex_iterator it(code.begin(), code.end(), name), end; it != end; ++it) {
        const std::string family = it->str() + ":";
        bool listed = false;
        for (const KeyShape& k : kAllKeys) {
          listed = listed || k.head.starts_with(family);
        }
        EXPECT_TRUE(listed) << entry.path().string() << ":" << n << ": `" << it->str()
                            << "` begins no key of keys::kAllKeys";
      }
    }
  }
  EXPECT_GT(files, 50) << "scanned too few files under " << PLAUDIT_SOURCE_DIR << "/src";
}

// SessionStore still spells the channel itself (sessions.hpp); it must be the listed one.
TEST(KeyTable, TheSessionChannelIsTheListedOne) {
  EXPECT_EQ(std::string_view(SessionStore::kInvalidationChannel), kSessionInvalidations);
}

}  // namespace
}  // namespace plaudit::redis::keys
