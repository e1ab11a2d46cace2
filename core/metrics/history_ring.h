#pragma once

// The bounded in-memory history the node's metrics sampler keeps its samples in.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace shardmap::core {

// A fixed-capacity ring of samples, oldest dropped first. Thread-safe. T must be copyable.
template <typename T> class HistoryRing final {
public:
    explicit HistoryRing(std::size_t capacity)
        : m_capacity(capacity == 0 ? 1 : capacity)
    {
        m_items.reserve(m_capacity);
    }

    void push(T item)
    {
        std::lock_guard lock(m_mutex);
        if (m_items.size() < m_capacity) {
            m_items.push_back(std::move(item));
        } else {
            m_items[m_next] = std::move(item);
        }
        m_next = (m_next + 1) % m_capacity;
    }

    // Items in insertion order (oldest first) for which keep(item) is true.
    std::vector<T> snapshot(const std::function<bool(const T&)>& keep = {}) const
    {
        std::lock_guard lock(m_mutex);
        std::vector<T> out;
        out.reserve(m_items.size());
        const std::size_t start = m_items.size() < m_capacity ? 0 : m_next;
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            const T& item = m_items[(start + i) % m_items.size()];
            if (!keep || keep(item))
                out.push_back(item);
        }
        return out;
    }

    std::size_t size() const
    {
        std::lock_guard lock(m_mutex);
        return m_items.size();
    }
    std::size_t capacity() const { return m_capacity; }

private:
    const std::size_t m_capacity;
    mutable std::mutex m_mutex;
    std::vector<T> m_items;
    std::size_t m_next = 0;
};

} // namespace shardmap::core
