#pragma once

// A fixed set of threads that run queued tasks: how one caller does a few blocking calls at once
// (the router's writes to a shard's copies) without a thread per call.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace shardmap::core {

// Runs tasks on `threads` threads in the order they were queued. A task must not wait for another
// task of the same pool (with every thread waiting, none would run it). Destruction runs what is
// queued, then joins.
class TaskPool final {
public:
    explicit TaskPool(std::size_t threads)
    {
        m_threads.reserve(threads);
        for (std::size_t i = 0; i < threads; ++i)
            m_threads.emplace_back([this] { run(); });
    }
    ~TaskPool()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        for (auto& thread : m_threads)
            thread.join();
    }
    TaskPool(const TaskPool&) = delete;
    TaskPool& operator=(const TaskPool&) = delete;

    void post(std::function<void()> task)
    {
        {
            std::lock_guard lock(m_mutex);
            m_tasks.push_back(std::move(task));
        }
        m_wake.notify_one();
    }

private:
    void run()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
            if (m_tasks.empty())
                return;
            auto task = std::move(m_tasks.front());
            m_tasks.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_tasks;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

} // namespace shardmap::core
