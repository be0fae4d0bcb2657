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

/// As [`round_robin`], on `threads` threads of their own (at least one, however few items),
/// handing each result to `consume` on the caller's thread as soon as it and every one
/// before it are ready, so that the caller works on the first results (writes them) while
/// the threads make the rest. Each thread takes the next item not yet taken when it is
/// free, rather than every `threads`-th: results then come nearly in order, and a thread
/// that drew small items does not sit idle while another works through large ones. After
/// `consume` fails it is not called again and the threads take no more items; the error
/// is returned.
pub(crate) fn work_in_order<T: Sync, S: Send, R: Send, E>(
    items: &[T],
    threads: usize,
    states: &mut Vec<S>,
    make: impl Fn() -> S,
    work: impl Fn(&mut S, &T) -> R + Sync,
    mut consume: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E> {
    let threads = threads.clamp(1, items.len().max(1));
    while states.len() < threads {
        states.push(make());
    }
    let (done, ready) = std::sync::mpsc::channel();
    let next_item = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (work, next_item) = (&work, &next_item);
        for state in states.iter_mut().take(threads) {
            let done = done.clone();
            scope.spawn(move || {
                loop {
                    let i = next_item.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    // The receiver goes only once every result came or `consume` failed.
                    if i >= items.len() || done.send((i, work(state, &items[i]))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        // Results that came before their turn, by index; the next one to hand over.
        let mut waiting = std::collections::BTreeMap::new();
        let mut next_result = 0;
        let mut outcome = Ok(());
        // Ends when every thread has finished (or panicked: the scope passes that on).
        for (i, result) in ready.iter() {
            if outcome.is_err() {
                continue;
            }
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&next_result) {
                next_result += 1;
                if let Err(e) = consume(next_result - 1, result) {
                    // No more items taken; those under way finish (bounded work).
                    next_item.store(items.len(), std::sync::atomic::Ordering::Relaxed);
                    outcome = Err(e);
                    waiting.clear();
                    break;
                }
            }
        }
        outcome
    })
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

    #[test]
    fn in_order_results_are_handed_over_in_order_and_a_failure_stops_them() {
        let items: Vec<usize> = (0..41).collect();
        let mut states = Vec::new();
        for threads in [0, 1, 2, 3, 64] {
            let mut seen = Vec::new();
            let outcome: Result<(), ()> = work_in_order(
                &items,
                threads,
                &mut states,
                || 0usize,
                |count, &i| {
                    *count += 1;
                    // Later items finish sooner, so results arrive out of order.
                    std::thread::sleep(std::time::Duration::from_micros(50 * (41 - i) as u64));
                    i * 3
                },
                |i, result| {
                    seen.push((i, result));
                    Ok(())
                },
            );
            assert!(outcome.is_ok());
            let expected: Vec<_> = items.iter().map(|&i| (i, i * 3)).collect();
            assert_eq!(seen, expected, "{threads} threads");
        }
        // Every item was worked on once per call, by the states kept between calls.
        let worked: usize = states.iter().sum();
        assert_eq!(worked, 5 * items.len());

        // A failure at item 7: nothing after it is handed over, and the error comes back.
        let mut handed = Vec::new();
        let outcome = work_in_order(
            &items,
            2,
            &mut states,
            || 0usize,
            |_, &i| i,
            |i, _| {
                handed.push(i);
                if i == 7 {
                    Err(format!("failed at {i}"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(outcome, Err("failed at 7".to_string()));
        assert_eq!(handed, (0..=7).collect::<Vec<_>>());

        // No items: nothing handed over, no error.
        let none: Result<(), ()> = work_in_order(
            &[] as &[usize],
            2,
            &mut Vec::new(),
            || 0u8,
            |_, &i| i,
            |_, _| panic!("nothing to hand over"),
        );
        assert!(none.is_ok());
    }
}
