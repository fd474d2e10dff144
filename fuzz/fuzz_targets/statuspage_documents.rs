//! Documents read from another site: a vendor's `summary.json` (mirrors) and a Statuspage
//! page's `summary.json`, `incidents.json` and `scheduled-maintenances.json` (imports).
#![no_main]

use herald::domain::imports::statuspage::{self, IncidentsDoc, MaintenancesDoc, SummaryDoc};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = herald::domain::vendor::parse(data);
    let _ = statuspage::parse::<SummaryDoc>("summary.json", data);
    let _ = statuspage::parse::<IncidentsDoc>("incidents.json", data);
    let _ = statuspage::parse::<MaintenancesDoc>("scheduled-maintenances.json", data);
});
