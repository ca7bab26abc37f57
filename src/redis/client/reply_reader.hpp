#pragma once
// hiredis reader callbacks that build a Reply while hiredis parses, instead of hiredis's own
// redisReply tree (a calloc per element and a malloc per string) that the client then copied
// into a Reply. An article-list page is 20 HGETALL replies of 34 strings each: that double
// build was ~1,400 allocations per page and the largest user-space cost in its profile.
//
// Install on a context with UseReplyReader(ac->c.reader); a reply handed to its callbacks
// is then a ReplyRoot, taken with TakeReply. hiredis frees only the root (freeObject after
// the callback, or on a protocol error), and the root owns every element.
//
// The root starts with a redisReply header kept in step with the value's type, integer and
// string: hiredis itself reads ->type and ->str of a reply no callback waits for (the error
// a server sends before it closes a connection, e.g. "max number of clients reached").
#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include "redis/client/reply.hpp"

namespace plaudit::redis {

struct ReplyRoot {
  redisReply head{};  // must stay the first member: hiredis may read it as a redisReply
  Reply value;
};

// Points the reader at our callbacks (never edits hiredis's shared default table).
void UseReplyReader(redisReader* reader);
// The functions themselves, for a reader made with redisReaderCreateWithFunctions.
redisReplyObjectFunctions* ReplyReaderFunctions();

// Moves the value out of a reply built by these callbacks (the root stays for hiredis to
// free). nullptr (a connection that went away) is not a reply: check before calling.
Reply TakeReply(void* root);

}  // namespace plaudit::redis
