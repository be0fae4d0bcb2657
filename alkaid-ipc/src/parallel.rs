//! Work on the buffers of one message spread over scoped threads: the writer's compression
//! and the reader's decompression ahead of the walk.

/// `work(state, item)` for every item, on up to `threads` threads (on the caller's thread
/// when one is asked for or there is at most one item), each thread with its own `state()`
/// (codec contexts). Items are handed out round robin, so that the large buffers of one
/// column spread over the threads. The results come back in the items' order.
pub(crate) fn round_robin<T: Sync, S, R: Send>(
    items: &[T],
    threads: usize,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    if threads <= 1 || items.len() <= 1 {
        let mut state = state();
        return items.iter().map(|item| work(&mut state, item)).collect();
    }
    let threads = threads.min(items.len());
    let mut results: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (state, work) = (&state, &work);
        let handles: Vec<_> = (0..threads)
            .map(|first| {
                scope.spawn(move || {
                    let mut state = state();
                    (first..items.len())
                        .step_by(threads)
                        .map(|i| (i, work(&mut state, &items[i])))
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
    fn results_come_back_in_order_whatever_the_threads() {
        let items: Vec<usize> = (0..37).collect();
        for threads in [0, 1, 2, 5, 64] {
            let states = std::sync::atomic::AtomicUsize::new(0);
            let doubled = round_robin(
                &items,
                threads,
                || states.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                |_, &i| i * 2,
            );
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
            // One state per thread used, never one per item.
            assert_eq!(states.into_inner(), threads.clamp(1, items.len()));
        }
    }
}
