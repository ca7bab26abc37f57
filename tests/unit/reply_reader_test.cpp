// The client's replies are built by its own hiredis reader callbacks
// (redis/client/reply_reader.hpp). They must give exactly the tree hiredis's default reader gives,
// however the bytes arrive, and free everything on a protocol error (the ASan build checks for
// leaks).
#include "redis/client/reply_reader.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <string>

#include "support/hiredis_oracle.hpp"

namespace plaudit::redis {
namespace {

using testing_redis::FromHiredis;

void ExpectSame(const Reply& a, const Reply& b, const std::string& where) {
  ASSERT_EQ(a.type, b.type) << where;
  EXPECT_EQ(a.integer, b.integer) << where;
  EXPECT_EQ(a.str, b.str) << where;
  ASSERT_EQ(a.elements.size(), b.elements.size()) << where;
  for (size_t i = 0; i < a.elements.size(); ++i) {
    ExpectSame(a.elements[i], b.elements[i], where + "/" + std::to_string(i));
  }
}

// Every reply in `bytes`, fed `chunk` bytes at a time, through our callbacks.
std::vector<Reply> ReadOurs(const std::string& bytes, size_t chunk) {
  redisReader* reader = redisReaderCreateWithFunctions(ReplyReaderFunctions());
  std::vector<Reply> out;
  for (size_t pos = 0; pos < bytes.size(); pos += chunk) {
    EXPECT_EQ(redisReaderFeed(reader, bytes.data() + pos, std::min(chunk, bytes.size() - pos)),
              REDIS_OK);
    void* reply = nullptr;
    while (redisReaderGetReply(reader, &reply) == REDIS_OK && reply != nullptr) {
      out.push_back(TakeReply(reply));
      ReplyReaderFunctions()->freeObject(reply);
      reply = nullptr;
    }
  }
  redisReaderFree(reader);
  return out;
}

std::vector<Reply> ReadHiredis(const std::string& bytes) {
  redisReader* reader = redisReaderCreate();
  EXPECT_EQ(redisReaderFeed(reader, bytes.data(), bytes.size()), REDIS_OK);
  std::vector<Reply> out;
  void* reply = nullptr;
  while (redisReaderGetReply(reader, &reply) == REDIS_OK && reply != nullptr) {
    out.push_back(FromHiredis(static_cast<redisReply*>(reply)));
    freeReplyObject(reply);
    reply = nullptr;
  }
  redisReaderFree(reader);
  return out;
}

TEST(ReplyReader, BuildsTheSameTreeAsHiredisInAnyChunking) {
  std::string big(70000, 'x');
  // Appended piece by piece: the binary string holds a NUL (and GCC 12 warns falsely on
  // long chains of std::string operator+).
  std::string stream = "+OK\r\n-ERR unknown command\r\n:-9223372036854775808\r\n:42\r\n";
  stream += "$0\r\n\r\n$-1\r\n*-1\r\n*0\r\n";
  stream.append("$7\r\na\0b\r\nc\xff\r\n", 13);
  stream += "$70000\r\n";
  stream += big;
  stream += "\r\n";
  // a like script's answer, and a claim's: nested arrays with nil and integers inside
  stream += "*2\r\n:1\r\n:300\r\n";
  stream += "*2\r\n$1\r\n7\r\n*2\r\n*3\r\n$4\r\na1:s\r\n$-1\r\n*4\r\n$2\r\n12\r\n$3\r\n1:5\r\n";
  stream += "$2\r\n13\r\n$3\r\n0:6\r\n*3\r\n$4\r\na2:s\r\n$1\r\n9\r\n*0\r\n";
  stream += "*3\r\n*1\r\n*1\r\n*1\r\n:5\r\n-WRONGTYPE x\r\n+QUEUED\r\n";
  const auto expected = ReadHiredis(stream);
  ASSERT_EQ(expected.size(), 13u);
  EXPECT_EQ(expected[8].str, std::string("a\0b\r\nc\xff", 7));  // the oracle read binary right
  for (size_t chunk : {stream.size(), size_t{1}, size_t{3}, size_t{4096}}) {
    const auto ours = ReadOurs(stream, chunk);
    ASSERT_EQ(ours.size(), expected.size()) << "chunk " << chunk;
    for (size_t i = 0; i < ours.size(); ++i) {
      ExpectSame(ours[i], expected[i],
                 "chunk " + std::to_string(chunk) + " reply " + std::to_string(i));
    }
  }
}

TEST(ReplyReader, RootLooksLikeARedisReplyToHiredis) {
  // hiredis reads ->type and ->str of an unsolicited error before it closes the connection.
  redisReader* reader = redisReaderCreateWithFunctions(ReplyReaderFunctions());
  const std::string bytes = "-ERR max number of clients reached\r\n:7\r\n";
  ASSERT_EQ(redisReaderFeed(reader, bytes.data(), bytes.size()), REDIS_OK);
  void* reply = nullptr;
  ASSERT_EQ(redisReaderGetReply(reader, &reply), REDIS_OK);
  ASSERT_NE(reply, nullptr);
  const auto* head = static_cast<const redisReply*>(reply);
  EXPECT_EQ(head->type, REDIS_REPLY_ERROR);
  EXPECT_STREQ(head->str, "ERR max number of clients reached");
  EXPECT_EQ(head->len, 33u);
  ReplyReaderFunctions()->freeObject(reply);
  ASSERT_EQ(redisReaderGetReply(reader, &reply), REDIS_OK);
  ASSERT_NE(reply, nullptr);
  head = static_cast<const redisReply*>(reply);
  EXPECT_EQ(head->type, REDIS_REPLY_INTEGER);
  EXPECT_EQ(head->integer, 7);
  EXPECT_EQ(TakeReply(reply).integer, 7);
  ReplyReaderFunctions()->freeObject(reply);
  redisReaderFree(reader);
}

TEST(ReplyReader, AProtocolErrorMidArrayFreesWhatWasBuilt) {
  redisReader* reader = redisReaderCreateWithFunctions(ReplyReaderFunctions());
  // Two elements read, then a byte that is no RESP type: hiredis drops the partial root.
  const std::string bytes = "*3\r\n$5\r\nhello\r\n*1\r\n$3\r\nabc\r\n!oops\r\n";
  ASSERT_EQ(redisReaderFeed(reader, bytes.data(), bytes.size()), REDIS_OK);
  void* reply = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader, &reply), REDIS_ERR);
  EXPECT_EQ(reply, nullptr);
  EXPECT_EQ(reader->err, REDIS_ERR_PROTOCOL);
  redisReaderFree(reader);

  // A reader freed with a partial reply in it frees that too.
  reader = redisReaderCreateWithFunctions(ReplyReaderFunctions());
  const std::string partial = "*2\r\n$5\r\nhello\r\n";
  ASSERT_EQ(redisReaderFeed(reader, partial.data(), partial.size()), REDIS_OK);
  ASSERT_EQ(redisReaderGetReply(reader, &reply), REDIS_OK);
  EXPECT_EQ(reply, nullptr);
  redisReaderFree(reader);
}

// An array's header alone costs nothing: its elements are made as they arrive. (Before, the
// count the header declared was made at once: "*10000000" was 10 million empty Replies, some
// 800 MB, before a byte of them came; found by fuzz/resp.cpp with a larger count.)
TEST(ReplyReader, AnArrayHeaderMakesNoElementsBeforeTheyArrive) {
  redisReader* reader = redisReaderCreateWithFunctions(ReplyReaderFunctions());
  const std::string header = "*10000000\r\n:1\r\n:2\r\n";
  const struct mallinfo2 before = mallinfo2();
  ASSERT_EQ(redisReaderFeed(reader, header.data(), header.size()), REDIS_OK);
  void* reply = nullptr;
  ASSERT_EQ(redisReaderGetReply(reader, &reply), REDIS_OK);
  EXPECT_EQ(reply, nullptr);  // 2 of 10 million elements: not a reply yet
  const struct mallinfo2 after = mallinfo2();
  const size_t held = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
  EXPECT_LT(held, size_t{1} << 20) << "bytes allocated for an array header and two elements";
  redisReaderFree(reader);

  // And a whole array still reads the same as with hiredis's reader, its elements in order.
  std::string stream = "*1500\r\n";
  for (int i = 0; i < 1500; ++i) {
    stream += i % 2 == 0 ? ":" + std::to_string(i) + "\r\n" : "*1\r\n$1\r\nx\r\n";
  }
  const auto expected = ReadHiredis(stream);
  ASSERT_EQ(expected.size(), 1u);
  for (size_t chunk : {stream.size(), size_t{1}, size_t{7}}) {
    const auto ours = ReadOurs(stream, chunk);
    ASSERT_EQ(ours.size(), 1u);
    ExpectSame(ours[0], expected[0], "chunk " + std::to_string(chunk));
  }
}

}  // namespace
}  // namespace plaudit::redis
