//! The console's urlencoded forms, decoded as the console decodes them and turned into the
//! inputs of an incident, a maintenance, a template, an update and the status grid.
#![no_main]

use herald::error::FieldErrors;
use herald::http::admin::form::{Submitted, local_deadline};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let form = Submitted(url::form_urlencoded::parse(data).into_owned().collect());
    for tz in [
        chrono_tz::UTC,
        chrono_tz::Asia::Kolkata,
        chrono_tz::America::St_Johns,
    ] {
        let _ = form.open_input(tz);
        let _ = form.maintenance_input(tz);
        let _ = form.update_input(tz);
        let _ = local_deadline(form.get("deadline"), tz);
    }
    let _ = form.template_input();
    let mut errors = FieldErrors::new();
    let _ = form.components(&mut errors);
});
