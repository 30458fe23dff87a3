//! `Communicator::from_env` in a world of several processes, as torchrun starts them, on a
//! machine without the GPUs it needs: an `Err` that says what to do instead, never a hang.
//! One test, because it changes the process environment.

use std::time::Duration;
use warpspeed_runtime::{Communicator, Error};

#[test]
fn a_world_of_processes_without_gpus_is_an_error_that_says_how_to_simulate_it() {
    for (k, v) in [
        ("RANK", "0"),
        ("WORLD_SIZE", "2"),
        ("LOCAL_RANK", "0"),
        ("MASTER_ADDR", "127.0.0.1"),
        ("MASTER_PORT", "29731"),
    ] {
        std::env::set_var(k, v);
    }
    let short = Duration::from_millis(300);

    std::env::set_var("WARPSPEED_BACKEND", "sim");
    let e = Communicator::from_env_with_timeout(short).unwrap_err();
    assert!(matches!(e, Error::Collective { .. }), "{e}");
    assert!(e.to_string().contains("Devices::simulated(2)"), "{e}");

    // Unset: a GPU a process. On a GPU machine rank 1 never comes (an error within the
    // timeout); without one, the message names the rank and the simulated alternative
    // instead of `Device::new`'s advice to fall back to the simulator.
    std::env::remove_var("WARPSPEED_BACKEND");
    let e = Communicator::from_env_with_timeout(short).unwrap_err();
    assert!(matches!(e, Error::Collective { .. }), "{e}");
    let text = e.to_string();
    if warpspeed_runtime::Device::cuda(0).is_err() {
        assert!(
            text.contains("rank 0 of 2") && text.contains("Devices::simulated(2)"),
            "{text}"
        );
        assert!(!text.contains("fall back"), "{text}");
    }

    // A world of one is the process alone: the simulator where there is no GPU.
    std::env::set_var("WORLD_SIZE", "1");
    let alone = Communicator::from_env_with_timeout(short).unwrap();
    assert_eq!((alone.rank(), alone.size()), (0, 1));
}
