//===- Worker.h - A background thread with a job queue for the GUI -*- C++ -*-===//
//
// Compile, run and database jobs run on a Worker so a frame never waits for them. Jobs run one
// at a time in FIFO order. A job never touches UI state: it hands its result back as a closure
// (`JobContext::deliver`) that the UI thread runs at the start of a frame (`Worker::drain`), so
// results arrive as immutable snapshots (shared_ptr<const ...>) swapped in between frames.
//
// Threading: post/cancelCurrent/progress/busy/drain may be called from the UI thread while the
// worker runs; deliver/progress reports come from the worker thread. `wake` (optional) is called
// from the worker thread whenever something changed, so a host that sleeps between frames
// (glfwWaitEventsTimeout) can post an empty event and redraw.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_WORKER_H
#define LOUPE_VISUALIZER_WORKER_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace loupe::visualizer {

/// What the UI shows about the job in flight.
struct JobProgress {
  bool running = false;
  uint64_t jobId = 0;    ///< 0 when nothing runs.
  std::string label;     ///< e.g. "run cnn.onnx".
  std::string stage;     ///< Runner stage: "compile", "warmup", "run", "store"; empty before.
  double fraction = 0;   ///< In [0, 1] within the stage.
  size_t queued = 0;     ///< Jobs waiting behind it.
};

class JobContext {
public:
  /// Set when the UI asked to cancel this job; jobs poll it (runModel takes its address).
  const std::atomic<bool> &cancelFlag() const { return cancel_; }
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }
  /// Reports progress; cheap, callable often.
  void progress(const std::string &stage, double fraction);
  /// Hands `apply` to the UI thread; it runs in Worker::drain, at the start of a frame.
  void deliver(std::function<void()> apply);
  uint64_t jobId() const { return id_; }

private:
  friend class Worker;
  JobContext(class Worker &worker, uint64_t id) : worker_(worker), id_(id) {}
  class Worker &worker_;
  uint64_t id_;
  std::atomic<bool> cancel_{false};
};

class Worker {
public:
  using Job = std::function<void(JobContext &)>;

  explicit Worker(std::string name = "worker");
  /// Cancels the running job, drops queued ones and joins the thread.
  ~Worker();
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  /// Queues `job`; returns its id (> 0).
  uint64_t post(std::string label, Job job);
  /// Asks the running job to stop (it polls JobContext::cancelled) and drops queued jobs whose
  /// label starts with `labelPrefix` (all when empty).
  void cancelCurrent();
  void dropQueued(const std::string &labelPrefix = "");

  JobProgress progress() const;
  /// True while a job is queued or running, or a result waits to be drained: the host keeps
  /// drawing frames instead of sleeping.
  bool busy() const;
  /// UI thread: runs every delivered closure in order; returns how many ran.
  size_t drain();
  /// Blocks until the queue is empty, no job runs and nothing waits to be drained, running
  /// `drain` meanwhile. For tests and the screenshot mode, never for a normal frame. Returns
  /// false on timeout.
  bool waitIdle(double timeoutSeconds);

  void setWake(std::function<void()> wake);
  /// Called on the UI thread (through drain) when a job throws (bad_alloc, a bug): with the
  /// job's label and the exception's text, so the host can log it and leave its busy state.
  /// Without one, the failure goes to stderr.
  using FailureHandler = std::function<void(const std::string &label, const std::string &what)>;
  void setFailureHandler(FailureHandler handler);

private:
  friend class JobContext;
  void loop();
  void wake();

  struct Queued {
    uint64_t id;
    std::string label;
    Job job;
  };

  std::string name_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Queued> queue_;
  std::vector<std::function<void()>> outbox_;
  JobProgress progress_;
  JobContext *current_ = nullptr;
  uint64_t nextId_ = 1;
  bool stopping_ = false;
  std::function<void()> wake_;
  FailureHandler onFailure_;
  std::thread thread_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_WORKER_H
