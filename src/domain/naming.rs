//! How a component is named to people: components with the same name in several regions (an
//! `API` in `eu-west` and one in `us-east`) are told apart everywhere a person picks or reads
//! one: forms, checkboxes, the support list, "Affected:" lines and mails. Machine formats (the
//! Statuspage v2 JSON, webhooks) keep the plain name and carry the region apart where they can.

/// `API (eu-west)`, or the name alone when the component has no region.
pub fn component_label(name: &str, region: Option<&str>) -> String {
    match region.map(str::trim).filter(|r| !r.is_empty()) {
        Some(region) => format!("{} ({region})", name.trim()),
        None => name.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_tells_two_components_of_one_name_apart() {
        assert_eq!(component_label("API", Some("eu-west")), "API (eu-west)");
        assert_eq!(component_label("API", Some("  ")), "API");
        assert_eq!(component_label("API", None), "API");
    }
}
