//! Work on the buffers of one message spread over scoped threads: the writer's compression
//! and the reader's decompression ahead of the walk.

/// `work(state, item)` for every item, on up to `threads` threads (on the caller's thread
/// when one is asked for or there is at most one item), each thread with a state of its own
/// (codec contexts) taken from `states`, which `make` tops up when it holds fewer than the
/// threads used. The states stay in `states` for the next call: a zstd context holds
/// megabytes of tables, and making one per message would cost more than a small message's
/// work. Items are handed out round robin, so that the large buffers of one column spread
/// over the threads. The results come back in the items' order.
pub(crate) fn round_robin<T: Sync, S: Send, R: Send>(
    items: &[T],
    threads: usize,
    states: &mut Vec<S>,
    make: impl Fn() -> S,
    work: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    while states.len() < threads {
        states.push(make());
    }
    if threads == 1 {
        let state = &mut states[0];
        return items.iter().map(|item| work(state, item)).collect();
    }
    let mut results: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = states
            .iter_mut()
            .take(threads)
            .enumerate()
            .map(|(first, state)| {
                scope.spawn(move || {
                    (first..items.len())
                        .step_by(threads)
                        .map(|i| (i, work(state, &items[i])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            // A panic in a codec is a bug: pass it on rather than hide it.
            let done = handle
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            for (i, result) in done {
                results[i] = Some(result);
            }
        }
    });
    // Every index was handed to exactly one thread, and every thread was joined.
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_and_states_are_kept_between_calls() {
        let items: Vec<usize> = (0..37).collect();
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = || made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut states = Vec::new();
        for threads in [0, 1, 2, 5, 64, 2] {
            let doubled = round_robin(&items, threads, &mut states, make, |_, &i| i * 2);
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
        // One state per thread ever used at once, never one per item or per call.
        assert_eq!(made.into_inner(), items.len());
        assert_eq!(states.len(), items.len());
        // No items: nothing to do, one state at most.
        let none: Vec<usize> = round_robin(&[], 4, &mut Vec::new(), || 0u8, |_, &i: &usize| i);
        assert!(none.is_empty());
    }
}
