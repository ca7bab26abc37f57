#pragma once
// Comments written before their html was stored (migration 024) get it once, at start-up,
// before plauditd serves: after that every row a cache fill reads carries its rendering, so a
// hash from SQL never caches an empty html for a live comment (the cache keeps a row's version
// until it changes). `plauditd migrate` and `serve` run it after the migrations; two instances
// starting at once render the same rows harmlessly (each update applies only while the body is
// the one rendered and html is still empty).
#include <cstdint>

#include "common/result.hpp"
#include "sql/store.hpp"
#include "text/markdown.hpp"

namespace plaudit::domain {

// How many comments got their html. Synchronous (start-up), in batches of kBatch rows.
Result<int64_t> RenderUnrenderedComments(sql::Store& store, const text::MarkdownOptions& options);

}  // namespace plaudit::domain
