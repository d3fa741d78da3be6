//===- Worker.cpp - A background thread with a job queue for the GUI ---------===//
#include "loupe/visualizer/Worker.h"

#include <chrono>
#include <cstdio>
#include <pthread.h>

namespace loupe::visualizer {

void JobContext::progress(const std::string &stage, double fraction) {
  {
    std::lock_guard<std::mutex> lock(worker_.mutex_);
    if (worker_.progress_.jobId != id_)
      return;
    worker_.progress_.stage = stage;
    worker_.progress_.fraction = fraction;
  }
  worker_.wake();
}

void JobContext::deliver(std::function<void()> apply) {
  {
    std::lock_guard<std::mutex> lock(worker_.mutex_);
    worker_.outbox_.push_back(std::move(apply));
  }
  worker_.wake();
}

Worker::Worker(std::string name) : name_(std::move(name)) {
  thread_ = std::thread([this] { loop(); });
  pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
    if (current_)
      current_->cancel_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t Worker::post(std::string label, Job job) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = nextId_++;
    queue_.push_back({id, std::move(label), std::move(job)});
    progress_.queued = queue_.size();
  }
  cv_.notify_all();
  return id;
}

void Worker::cancelCurrent() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (current_)
    current_->cancel_ = true;
}

void Worker::dropQueued(const std::string &labelPrefix) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = queue_.begin(); it != queue_.end();)
    it = it->label.rfind(labelPrefix, 0) == 0 ? queue_.erase(it) : it + 1;
  progress_.queued = queue_.size();
}

JobProgress Worker::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

bool Worker::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !queue_.empty() || progress_.running || !outbox_.empty();
}

size_t Worker::drain() {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ready.swap(outbox_);
  }
  for (auto &apply : ready)
    apply();
  return ready.size();
}

bool Worker::waitIdle(double timeoutSeconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    drain();
    if (!busy())
      return true;
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void Worker::setFailureHandler(FailureHandler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  onFailure_ = std::move(handler);
}

void Worker::setWake(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mutex_);
  wake_ = std::move(wake);
}

void Worker::wake() {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake = wake_;
  }
  if (wake)
    wake();
}

void Worker::loop() {
  while (true) {
    Queued next;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      next = std::move(queue_.front());
      queue_.pop_front();
      progress_ = JobProgress();
      progress_.running = true;
      progress_.jobId = next.id;
      progress_.label = next.label;
      progress_.queued = queue_.size();
    }
    wake();
    JobContext context(*this, next.id);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      current_ = &context;
    }
    std::string what;
    try {
      next.job(context);
    } catch (const std::exception &e) {
      what = e.what();
    } catch (...) {
      what = "unknown exception";
    }
    if (!what.empty()) {
      // Jobs report failures through their results; an exception (bad_alloc, a bug) is
      // handed to the host so that the UI says so and leaves its busy state.
      FailureHandler handler;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        handler = onFailure_;
      }
      std::string label = next.label;
      context.deliver([handler, what, label] {
        if (handler)
          handler(label, what);
        else
          std::fprintf(stderr, "loupe: job '%s' threw: %s\n", label.c_str(), what.c_str());
      });
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      current_ = nullptr;
      progress_.running = false;
      progress_.jobId = 0;
      progress_.queued = queue_.size();
    }
    wake();
  }
}

} // namespace loupe::visualizer
