#include "kiln/jit/jit_runtime.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "kiln/jit/code_arena.h"
#include "kiln/cache/hash.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/inlining.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/page_store.h"

namespace kiln::jit {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t ns_since(Clock::time_point t) {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}

}  // namespace

const char* jit_build_id() { return KILN_JIT_BUILD_ID; }

std::string JitStats::summary() const {
  return "pages: " + std::to_string(requested) + " hot, " + std::to_string(compiled) + " compiled (" +
         std::to_string(compile_ns / 1000000) + " ms), " + std::to_string(loaded) + " loaded from cache (" +
         std::to_string(load_ns / 1000) + " us), " + std::to_string(interpreted) + " interpreted, " +
         std::to_string(not_cacheable) + " not cacheable, rejected " + std::to_string(compare_rejected) +
         " by compare / " + std::to_string(mac_rejected) + " by MAC / " + std::to_string(corrupt) + " corrupt";
}

struct JitRuntime::Impl {
  CodeArena arena;  // first: destroyed last, after everything that points into it
  JitOptions options;
  std::unique_ptr<PageStore> store;

  struct Key {
    cache::Hash128 hash;
    abi::JitMode mode;
    bool operator<(const Key& o) const {
      return std::tie(hash.high, hash.low, mode) < std::tie(o.hash.high, o.hash.low, o.mode);
    }
  };
  struct Job {
    std::vector<std::uint32_t> page;
    std::vector<std::uint16_t> entries;
    abi::JitMode mode;
    std::shared_ptr<PageSlot> slot;
  };

  mutable std::mutex mu;  // guards everything below
  std::map<Key, std::shared_ptr<PageSlot>> slots;
  std::vector<std::unique_ptr<PageCode>> codes;
  std::deque<Job> queue;  // compiles waiting for a pool thread
  int in_pool = 0;        // tasks of this runtime handed to the pool and not yet returned
  bool stopping = false;
  std::condition_variable idle_cv;
  // When the options name no pool, the runtime's own, started by the first background compile: a
  // run whose pages all come from the cache starts no thread.
  std::unique_ptr<core::WorkerPool> own_pool;
  core::WorkerPool* pool = nullptr;
  JitStats stats;

  ~Impl() {
    {
      // Queued compiles are dropped; the pool may be shared, so wait for this runtime's tasks only.
      std::unique_lock lock(mu);
      stopping = true;
      queue.clear();
      idle_cv.wait(lock, [&] { return in_pool == 0; });
    }
    own_pool.reset();
    store.reset();  // flushes its writer
  }

  // Copies `code` into the arena: read+execute, never writable and executable.
  Result<abi::PageFunction> install(const std::vector<std::uint8_t>& code, std::uint32_t function_offset,
                                    std::uint32_t alignment) {
    auto at = arena.install(code, alignment);
    if (!at) return at.error();
    return reinterpret_cast<abi::PageFunction>(const_cast<std::uint8_t*>(*at) + function_offset);
  }

  void publish(const std::shared_ptr<PageSlot>& slot, abi::PageFunction fn, const std::vector<std::uint16_t>& entries,
               abi::JitMode mode) {
    auto code = std::make_unique<PageCode>();
    code->function = fn;
    code->mode = mode;  // recorded: a request for another mode is never covered by this code
    for (std::uint16_t e : entries) code->entries.set(e);
    std::lock_guard lock(mu);
    slot->code.store(code.get(), std::memory_order_release);
    codes.push_back(std::move(code));
  }

  void give_up(const std::shared_ptr<PageSlot>& slot) { slot->unavailable.store(true, std::memory_order_release); }

  // Installs and publishes code that was compiled elsewhere (shipped or cached); false if it
  // cannot be mapped.
  bool serve(const Job& job, const StoredPage& code, Clock::time_point started) {
    auto fn = install(code.code, code.function_offset, code.alignment);
    if (!fn) return false;
    publish(job.slot, *fn, code.entries, job.mode);
    std::lock_guard lock(mu);
    ++stats.loaded;
    stats.load_ns += ns_since(started);
    return true;
  }

  // Code for the job from the shipped pages or the persistent cache; false when neither has it.
  // Fills `union_entries` with what a compile should cover on a miss.
  bool load_cached(const Job& job, std::vector<std::uint16_t>& union_entries) {
    union_entries = job.entries;
    const auto started = Clock::now();
    if (options.aot) {
      if (auto shipped = options.aot->find(job.page, job.entries, job.mode); shipped && serve(job, *shipped, started))
        return true;
    }
    if (!store) return false;
    PageLookup found = store->find(job.page, job.entries, job.mode);
    {
      std::lock_guard lock(mu);
      stats.compare_rejected += std::uint64_t(found.compare_rejected);
      stats.mac_rejected += std::uint64_t(found.mac_rejected);
      stats.corrupt += std::uint64_t(found.corrupt);
    }
    if (!found.hit) {
      // Union on a miss: the new variant also covers the best cached one, so variants converge.
      union_entries.insert(union_entries.end(), found.variant_entries.begin(), found.variant_entries.end());
      std::sort(union_entries.begin(), union_entries.end());
      union_entries.erase(std::unique(union_entries.begin(), union_entries.end()), union_entries.end());
      return false;
    }
    if (options.verify && options.compiler) {
      const Verified verified = same_as_fresh_compile(job, *found.hit);
      if (verified != Verified::kSame) {
        // Compared before it runs: a differing entry never runs, it goes, and the page is compiled
        // (and stored) afresh for the entries the entry served. One that cannot be compared now
        // (the compiler is not there) is neither run nor deleted.
        if (verified == Verified::kDiffers) store->remove(job.page, job.mode);
        union_entries = found.hit->entries;
        return false;
      }
    }
    return serve(job, *found.hit, started);
  }

  // Verify mode: the hit's code must be what compiling its page and entries gives now.
  enum class Verified { kSame, kDiffers, kNotCompiled };
  Verified same_as_fresh_compile(const Job& job, const StoredPage& hit) {
    PageRequest request{job.page, hit.entries, job.mode};
    auto again = options.compiler->compile(request);
    if (!again) return Verified::kNotCompiled;
    if (again->code == hit.code && again->function_offset == hit.function_offset) return Verified::kSame;
    std::lock_guard lock(mu);
    ++stats.verify_mismatches;
    return Verified::kDiffers;
  }

  void compile(Job& job, const std::vector<std::uint16_t>& entries) {
    if (!options.compiler) {
      give_up(job.slot);
      return;
    }
    const auto started = Clock::now();
    PageRequest request{job.page, entries, job.mode};
    auto compiled = options.compiler->compile(request);
    const std::uint64_t took = ns_since(started);
    if (!compiled || compiled->entries.empty()) {
      std::lock_guard lock(mu);
      ++stats.compile_failed;
      give_up(job.slot);
      return;
    }
    auto fn = install(compiled->code, compiled->function_offset, compiled->alignment);
    if (!fn) {
      give_up(job.slot);
      return;
    }
    publish(job.slot, *fn, compiled->entries, job.mode);
    {
      std::lock_guard lock(mu);
      ++stats.compiled;
      stats.compile_ns += took;
      if (!compiled->cacheable)
        ++stats.not_cacheable;
      else if (store)
        ++stats.stored;
    }
    if (compiled->cacheable && store) store->put(job.page, job.mode, *compiled);
  }

  // One pool task per queued job: takes the oldest job (none left when the runtime is stopping).
  void run_queued() {
    std::unique_lock lock(mu);
    if (!queue.empty()) {
      Job job = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      const std::vector<std::uint16_t> entries = job.entries;  // the union, decided when it was queued
      compile(job, entries);
      lock.lock();
    }
    --in_pool;
    idle_cv.notify_all();
  }
};

JitRuntime::JitRuntime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JitRuntime::~JitRuntime() = default;

Result<std::unique_ptr<JitRuntime>> JitRuntime::create(JitOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  if (impl->options.store) {
    std::string fingerprint = impl->options.fingerprint;
    if (fingerprint.empty() && impl->options.compiler) fingerprint = impl->options.compiler->fingerprint();
    if (fingerprint.empty())
      return make_error("a page cache without a compiler needs the fingerprint of the compiler that filled it");
    auto store =
        PageStore::open({.store = impl->options.store, .build_id = jit_build_id(), .fingerprint = fingerprint});
    if (!store) return store.error();
    impl->store = std::move(*store);
  }
  impl->pool = impl->options.pool;
  return std::unique_ptr<JitRuntime>(new JitRuntime(std::move(impl)));
}

std::shared_ptr<PageSlot> JitRuntime::request(std::span<const std::uint32_t> page,
                                              std::span<const std::uint16_t> entries, abi::JitMode mode) {
  const Impl::Key key{
      cache::xxh3_128(std::span<const std::byte>(reinterpret_cast<const std::byte*>(page.data()), page.size() * 4)),
      mode};
  Impl::Job job;
  {
    std::lock_guard lock(impl_->mu);
    auto& slot = impl_->slots[key];
    if (slot) return slot;  // published, in flight, or given up: never asked for twice
    slot = std::make_shared<PageSlot>();
    ++impl_->stats.requested;
    job = {std::vector<std::uint32_t>(page.begin(), page.end()),
           std::vector<std::uint16_t>(entries.begin(), entries.end()), mode, slot};
  }
  // A cached page loads here and now: microseconds, and the page runs compiled from its next entry.
  std::vector<std::uint16_t> union_entries;
  if (impl_->load_cached(job, union_entries)) return job.slot;
  if (impl_->options.synchronous || !impl_->options.compiler) {
    impl_->compile(job, union_entries);
    return job.slot;
  }
  std::shared_ptr<PageSlot> slot = job.slot;
  core::WorkerPool* pool = nullptr;
  {
    std::lock_guard lock(impl_->mu);
    job.entries = std::move(union_entries);
    impl_->queue.push_back(std::move(job));
    ++impl_->in_pool;
    if (!impl_->pool) {
      impl_->own_pool = std::make_unique<core::WorkerPool>(std::max(1, impl_->options.compile_threads));
      impl_->pool = impl_->own_pool.get();
    }
    pool = impl_->pool;
  }
  pool->submit([impl = impl_.get()] { impl->run_queued(); });
  return slot;
}

std::size_t JitRuntime::precompile(const Program& program, abi::JitMode mode, const std::set<std::string>* only) {
  std::size_t with_code = 0;
  const ValueCallees values = value_callees(program);
  for (std::size_t p = 0; p < program.page_count(); ++p) {
    const std::vector<std::uint32_t> key = page_key_words(program, p, values);
    if (only && !only->count(aot_page_id(key, mode))) continue;
    auto slot = request(key, jit_entries(program.page(p), program.entries[p]), mode);
    if (!slot->code.load(std::memory_order_acquire) && !impl_->options.synchronous) {
      // Queued behind the pool: wait for it, the cook needs the blob on disk.
      wait_idle();
    }
    if (slot->code.load(std::memory_order_acquire)) ++with_code;
  }
  flush();
  return with_code;
}

void JitRuntime::wait_idle() {
  std::unique_lock lock(impl_->mu);
  impl_->idle_cv.wait(lock, [&] { return impl_->in_pool == 0; });
}

void JitRuntime::flush() {
  wait_idle();
  if (impl_->store) impl_->store->flush();
}

const JitOptions& JitRuntime::options() const { return impl_->options; }

JitStats JitRuntime::stats() const {
  std::lock_guard lock(impl_->mu);
  JitStats s = impl_->stats;
  s.interpreted = 0;
  for (const auto& [key, slot] : impl_->slots)
    if (!slot->code.load(std::memory_order_acquire)) ++s.interpreted;
  return s;
}

}  // namespace kiln::jit
