//! A page's uploaded logo or favicon: PNG and WebP decoded under their limits, SVG filtered
//! (and its nesting and output bounded). Whatever passes is small.
#![no_main]

use herald::domain::image::{MAX_SVG_OUTPUT, check_image};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(checked) = check_image(data) {
        assert!(checked.bytes.len() <= MAX_SVG_OUTPUT.max(data.len()));
    }
});
