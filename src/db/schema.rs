//! Diesel table definitions, written by hand for both backends. They must match
//! `migrations/sqlite` and `migrations/postgres`; the schema round-trip tests catch drift.

diesel::table! {
    settings (key) {
        key -> Text,
        value -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    users (id) {
        id -> Text,
        email -> Text,
        password_hash -> Text,
        role -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    status_pages (id) {
        id -> Text,
        slug -> Text,
        name -> Text,
        description -> Nullable<Text>,
        public_url -> Nullable<Text>,
        custom_domain -> Nullable<Text>,
        time_zone -> Text,
        support_email -> Nullable<Text>,
        is_default -> Bool,
        next_update_none_mins -> Nullable<Integer>,
        next_update_minor_mins -> Nullable<Integer>,
        next_update_major_mins -> Nullable<Integer>,
        next_update_critical_mins -> Nullable<Integer>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        embed_origins -> Text,
        visibility -> Text,
        allowed_email_domains -> Text,
        support_reach -> Text,
        access_epoch -> BigInt,
        brand_color -> Nullable<Text>,
        theme -> Text,
        header_links -> Text,
        footer -> Nullable<Text>,
        custom_css -> Nullable<Text>,
        default_language -> Text,
        languages -> Text,
        embed_look -> Text,
    }
}

diesel::table! {
    page_images (page_id, kind) {
        page_id -> Text,
        kind -> Text,
        content_type -> Text,
        data -> Binary,
        digest -> Text,
        uploaded_at -> Timestamp,
    }
}

// A counter per page that triggers move with every change to what the page shows
// (migration 2026-12-06-000001_page_changes).
diesel::table! {
    page_changes (page_id) {
        page_id -> Text,
        revision -> BigInt,
        site_seq -> BigInt,
    }
}

// One counter for the whole site that moves with every page's counter; `page_changes.site_seq`
// is its value when the page last moved (migration 2026-12-07-000002_site_changes).
diesel::table! {
    site_changes (id) {
        id -> Integer,
        seq -> BigInt,
    }
}

// A counter per incident that triggers move with every change to what the incident shows
// (migration 2026-12-06-000002_incident_changes).
diesel::table! {
    incident_changes (incident_id) {
        incident_id -> Text,
        revision -> BigInt,
    }
}

diesel::joinable!(incident_changes -> incidents (incident_id));

// A counter per component that triggers move with every change to its row or its status
// history (migration 2026-12-06-000003_component_changes), and the site's counter when it
// last moved (2026-12-07-000003_component_changes_site_seq).
diesel::table! {
    component_changes (component_id) {
        component_id -> Text,
        revision -> BigInt,
        site_seq -> BigInt,
    }
}

diesel::joinable!(component_changes -> components (component_id));

diesel::table! {
    page_passwords (page_id) {
        page_id -> Text,
        password_hash -> Text,
        set_at -> Timestamp,
    }
}

diesel::table! {
    page_read_tokens (id) {
        id -> Text,
        page_id -> Text,
        name -> Text,
        token_hash -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    page_reader_links (id) {
        id -> Text,
        page_id -> Text,
        email -> Text,
        next_path -> Text,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    component_groups (id) {
        id -> Text,
        page_id -> Text,
        name -> Text,
        description -> Nullable<Text>,
        position -> Integer,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    components (id) {
        id -> Text,
        page_id -> Text,
        group_id -> Nullable<Text>,
        name -> Text,
        description -> Nullable<Text>,
        position -> Integer,
        region -> Nullable<Text>,
        status -> Text,
        showcase -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        /// Marks a component that means "signing in" (support migration).
        signin -> Bool,
    }
}

diesel::table! {
    incidents (id) {
        id -> Text,
        page_id -> Text,
        reference -> Text,
        name -> Text,
        kind -> Text,
        impact -> Text,
        status -> Text,
        user_impact -> Nullable<Text>,
        scope -> Nullable<Text>,
        root_cause -> Nullable<Text>,
        started_at -> Timestamp,
        identified_at -> Nullable<Timestamp>,
        monitoring_at -> Nullable<Timestamp>,
        resolved_at -> Nullable<Timestamp>,
        scheduled_for -> Nullable<Timestamp>,
        scheduled_until -> Nullable<Timestamp>,
        auto_transition -> Bool,
        next_update_by -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        translations -> Text,
        metadata -> Text,
        maintenance_plan -> Text,
    }
}

diesel::table! {
    incident_components (incident_id, component_id) {
        incident_id -> Text,
        component_id -> Text,
    }
}

diesel::table! {
    incident_updates (id) {
        id -> Text,
        incident_id -> Text,
        status -> Text,
        body -> Text,
        next_update_by -> Nullable<Timestamp>,
        author_id -> Nullable<Text>,
        notify -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        translations -> Text,
        display_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    incident_update_components (incident_update_id, component_id) {
        incident_update_id -> Text,
        component_id -> Text,
        old_status -> Text,
        new_status -> Text,
    }
}

diesel::table! {
    component_status_changes (id) {
        id -> Text,
        component_id -> Text,
        old_status -> Nullable<Text>,
        new_status -> Text,
        incident_id -> Nullable<Text>,
        changed_at -> Timestamp,
    }
}

diesel::table! {
    postmortems (id) {
        id -> Text,
        incident_id -> Text,
        summary -> Text,
        root_cause -> Text,
        scope_figures -> Text,
        published -> Bool,
        published_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        translations -> Text,
    }
}

diesel::table! {
    postmortem_timeline_entries (id) {
        id -> Text,
        postmortem_id -> Text,
        occurred_at -> Timestamp,
        description -> Text,
    }
}

diesel::table! {
    postmortem_follow_ups (id) {
        id -> Text,
        postmortem_id -> Text,
        description -> Text,
        owner -> Nullable<Text>,
        state -> Text,
        position -> Integer,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    jobs (id) {
        id -> Text,
        kind -> Text,
        payload -> Text,
        run_at -> Timestamp,
        attempts -> Integer,
        max_attempts -> Integer,
        locked_by -> Nullable<Text>,
        locked_until -> Nullable<Timestamp>,
        last_error -> Nullable<Text>,
        dead_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::joinable!(component_groups -> status_pages (page_id));
diesel::joinable!(components -> status_pages (page_id));
diesel::joinable!(components -> component_groups (group_id));
diesel::joinable!(incidents -> status_pages (page_id));
diesel::joinable!(incident_components -> incidents (incident_id));
diesel::joinable!(incident_components -> components (component_id));
diesel::joinable!(incident_updates -> incidents (incident_id));
diesel::joinable!(incident_updates -> users (author_id));
diesel::joinable!(incident_update_components -> incident_updates (incident_update_id));
diesel::joinable!(incident_update_components -> components (component_id));
diesel::joinable!(component_status_changes -> components (component_id));
diesel::joinable!(postmortems -> incidents (incident_id));
diesel::joinable!(postmortem_timeline_entries -> postmortems (postmortem_id));
diesel::joinable!(postmortem_follow_ups -> postmortems (postmortem_id));

diesel::table! {
    audit_log (id) {
        id -> Text,
        at -> Timestamp,
        actor_id -> Nullable<Text>,
        actor_email -> Text,
        action -> Text,
        entity_type -> Text,
        entity_id -> Nullable<Text>,
        page_id -> Nullable<Text>,
        changes -> Text,
    }
}

diesel::table! {
    idempotency_keys (user_id, route, idem_key) {
        user_id -> Text,
        route -> Text,
        idem_key -> Text,
        request_hash -> Text,
        status_code -> Integer,
        body -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    incident_templates (id) {
        id -> Text,
        page_id -> Text,
        name -> Text,
        title -> Text,
        impact -> Nullable<Text>,
        body -> Text,
        components -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::joinable!(incident_templates -> status_pages (page_id));
diesel::joinable!(page_passwords -> status_pages (page_id));
diesel::joinable!(page_changes -> status_pages (page_id));
diesel::joinable!(page_images -> status_pages (page_id));
diesel::joinable!(page_read_tokens -> status_pages (page_id));
diesel::joinable!(page_reader_links -> status_pages (page_id));

diesel::table! {
    api_tokens (id) {
        id -> Text,
        user_id -> Text,
        name -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
        last_used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    sessions (id) {
        id -> Text,
        user_id -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
    }
}

// Second factors (migration 2026-12-08-000002_second_factors).
diesel::table! {
    user_totp (user_id) {
        user_id -> Text,
        secret -> Text,
        created_at -> Timestamp,
        confirmed_at -> Nullable<Timestamp>,
        last_step -> Nullable<BigInt>,
    }
}

diesel::table! {
    user_recovery_codes (user_id, digest) {
        user_id -> Text,
        digest -> Text,
        used_at -> Nullable<Timestamp>,
    }
}

diesel::joinable!(user_totp -> users (user_id));
diesel::joinable!(user_recovery_codes -> users (user_id));
diesel::joinable!(api_tokens -> users (user_id));
diesel::joinable!(sessions -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    settings,
    users,
    status_pages,
    component_groups,
    components,
    incidents,
    incident_components,
    incident_updates,
    incident_update_components,
    component_status_changes,
    postmortems,
    postmortem_timeline_entries,
    postmortem_follow_ups,
    jobs,
    audit_log,
    idempotency_keys,
    incident_templates,
    api_tokens,
    sessions,
    user_totp,
    user_recovery_codes,
    page_passwords,
    page_read_tokens,
    page_reader_links,
    page_images,
    page_changes,
    incident_changes,
    component_changes,
);

// The support contact form (migration 2026-11-30-000005_support).
diesel::table! {
    support_submissions (id) {
        id -> Text,
        page_id -> Text,
        reference -> Text,
        name -> Text,
        email -> Text,
        topic -> Text,
        component_id -> Nullable<Text>,
        account -> Nullable<Text>,
        message -> Text,
        wants_copy -> Bool,
        status -> Text,
        incident_id -> Nullable<Text>,
        client_ip -> Nullable<Text>,
        spooled -> Bool,
        submitted_at -> Timestamp,
        handled_at -> Nullable<Timestamp>,
        handled_by -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

// Subscribers and the notification fan-out (migration 000004_notify).

diesel::table! {
    subscribers (id) {
        id -> Text,
        page_id -> Text,
        kind -> Text,
        email -> Nullable<Text>,
        url -> Nullable<Text>,
        contact_email -> Nullable<Text>,
        secret -> Nullable<Text>,
        whole_page -> Bool,
        component_updates -> Bool,
        state -> Text,
        confirmed_at -> Nullable<Timestamp>,
        consecutive_failures -> Integer,
        first_failure_at -> Nullable<Timestamp>,
        manage_token_id -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        language -> Nullable<Text>,
    }
}

diesel::table! {
    subscriber_components (subscriber_id, component_id) {
        subscriber_id -> Text,
        component_id -> Text,
    }
}

diesel::table! {
    notification_events (id) {
        id -> Text,
        page_id -> Text,
        kind -> Text,
        incident_id -> Nullable<Text>,
        update_id -> Nullable<Text>,
        component_id -> Nullable<Text>,
        subscriber_id -> Nullable<Text>,
        impact -> Nullable<Text>,
        created_at -> Timestamp,
        expanded_at -> Nullable<Timestamp>,
        expanded_through -> Nullable<Text>,
    }
}

diesel::table! {
    notification_event_components (event_id, component_id) {
        event_id -> Text,
        component_id -> Text,
    }
}

diesel::table! {
    deliveries (id) {
        id -> Text,
        event_id -> Text,
        subscriber_id -> Text,
        page_id -> Text,
        channel -> Text,
        state -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        last_error -> Nullable<Text>,
        locked_by -> Nullable<Text>,
        locked_until -> Nullable<Timestamp>,
        delivered_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        waiting_for -> Nullable<Text>,
    }
}

diesel::joinable!(subscribers -> status_pages (page_id));
diesel::joinable!(subscriber_components -> subscribers (subscriber_id));
diesel::joinable!(notification_event_components -> notification_events (event_id));
diesel::joinable!(deliveries -> notification_events (event_id));
diesel::joinable!(deliveries -> subscribers (subscriber_id));

diesel::allow_tables_to_appear_in_same_query!(
    subscribers,
    subscriber_components,
    notification_events,
    notification_event_components,
    deliveries,
);
diesel::allow_tables_to_appear_in_same_query!(incidents, notification_events);

diesel::table! {
    responder_reminders (incident_id, deadline, kind) {
        incident_id -> Text,
        deadline -> Timestamp,
        kind -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    page_webhooks (page_id, purpose) {
        page_id -> Text,
        purpose -> Text,
        url -> Text,
        secret -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    integrations (id) {
        id -> Text,
        page_id -> Text,
        kind -> Text,
        name -> Text,
        token_hash -> Text,
        component_label -> Text,
        component_map -> Text,
        severity_label -> Text,
        severity_map -> Text,
        default_status -> Text,
        hold_secs -> Integer,
        template_id -> Nullable<Text>,
        incident_mode -> Text,
        notify_subscribers -> Bool,
        last_used_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    alert_states (integration_id, fingerprint) {
        integration_id -> Text,
        fingerprint -> Text,
        component_id -> Text,
        alert_name -> Text,
        summary -> Nullable<Text>,
        status -> Text,
        firing -> Bool,
        starts_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    alert_marks (component_id) {
        component_id -> Text,
        integration_id -> Nullable<Text>,
        integration -> Text,
        alert_name -> Text,
        set_at -> Timestamp,
    }
}

diesel::table! {
    incident_drafts (id) {
        id -> Text,
        page_id -> Text,
        integration_id -> Nullable<Text>,
        template_id -> Nullable<Text>,
        component_id -> Text,
        alert_name -> Text,
        summary -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    mirror_sources (url) {
        url -> Text,
        etag -> Nullable<Text>,
        vendor_name -> Text,
        vendor_url -> Nullable<Text>,
        confirmed_at -> Nullable<Timestamp>,
        failing_since -> Nullable<Timestamp>,
        last_error -> Nullable<Text>,
        checked_at -> Nullable<Timestamp>,
        next_poll_at -> Timestamp,
        created_at -> Timestamp,
    }
}

diesel::table! {
    mirrors (component_id) {
        component_id -> Text,
        page_id -> Text,
        source_url -> Text,
        vendor_component -> Text,
        vendor_label -> Text,
        vendor_status -> Nullable<Text>,
        incidents -> Text,
        problem -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::joinable!(mirrors -> mirror_sources (source_url));

diesel::table! {
    imported_records (page_id, kind, source_id) {
        page_id -> Text,
        kind -> Text,
        source_id -> Text,
        local_id -> Text,
        created_at -> Timestamp,
    }
}

// The marks of a page's components (`integrations::page_marks`).
diesel::allow_tables_to_appear_in_same_query!(alert_marks, components);
// A page's mirrors with their sources (`mirrors::of_page`).
diesel::allow_tables_to_appear_in_same_query!(mirrors, mirror_sources);
