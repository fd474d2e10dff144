# Herald's own words on public status pages, their forms and their mails.
# Placeables: { $name } is a value; a { $time } is drawn as a <time> element, a { $link } as a
# link, so only their place in the sentence is the translator's.

## The frame of every page

skip-to-content = Skip to main content
page-status-title = { $name } status
page-title-with = { $title } · { $name } status
nav-status = Status
nav-history = History
nav-subscribe = Subscribe
nav-support = Support
language-switcher = Language
feed-atom-title = { $name }: incident history (Atom)
feed-rss-title = { $name }: incident history (RSS)
feed-ics-title = { $name }: maintenance calendar (iCalendar)
stale-notice = Live data is temporarily unavailable; showing data as of { $time }.
data-as-of = Data as of { $time }. Times are shown in { $zone }, or in your own time zone when JavaScript is on.
footer-atom = Atom feed
footer-rss = RSS feed
footer-ics = Maintenance calendar
powered-by = Powered by Herald
original-language = Not translated: shown in the original language.
page-time = page time

## Statuses

component-status-operational = Operational
component-status-degraded_performance = Degraded Performance
component-status-partial_outage = Partial Outage
component-status-major_outage = Major Outage
component-status-under_maintenance = Under Maintenance
indicator-none = All Systems Operational
indicator-minor = Minor Service Outage
indicator-major = Partial System Outage
indicator-critical = Major System Outage
indicator-maintenance = Service Under Maintenance
impact-none = No impact
impact-minor = Minor impact
impact-major = Major impact
impact-critical = Critical impact
incident-status-investigating = Investigating
incident-status-identified = Identified
incident-status-monitoring = Monitoring
incident-status-resolved = Resolved
incident-status-postmortem = Postmortem
maintenance-status-scheduled = Scheduled
maintenance-status-in_progress = In Progress
maintenance-status-verifying = Verifying
maintenance-status-completed = Completed
kind-incident = Incident
kind-advisory = Advisory
kind-maintenance = Maintenance
follow-up-open = Open
follow-up-in_progress = In Progress
follow-up-done = Done
no-data = No data

## Durations, coarse: 45 s, 12 min, 1 h 5 min, 2 d 3 h

duration-seconds = { $s } s
duration-minutes = { $m } min
duration-hours = { $h } h
duration-hours-minutes = { $h } h { $m } min
duration-days = { $d } d
duration-days-hours = { $d } d { $h } h

## The overview

overall-status = Overall status
signin-affected = Signing in is affected.
signin-help-link = Can't sign in? Contact support
signin-help-after = The form works without an account.
active-incidents = Active incidents
maintenance-in-progress = Maintenance in progress
scheduled-maintenance = Scheduled maintenance
vendors-heading = Reported by our vendors
vendor-maintenance = (maintenance)
vendor-status-since = { $status } since { $time }.
vendor-status = { $status }.
vendor-affects = Affects our { $components }. This is { $vendor }'s report, not ours.
components-heading = Components
group-count = { $count ->
    [one] ({ $count } component)
   *[other] ({ $count } components)
}
no-components = No components are listed on this page yet.
stay-informed = Stay informed
link-history = Incident history
link-subscribe = Subscribe to updates
link-support = Contact support
link-atom = Atom feed
link-rss = RSS feed
link-ics = Maintenance calendar (iCalendar)

## A component

component-vendor = Status from { $vendor }'s page ({ $component })
vendor-last-known = Last known status
vendor-failing = as of { $time }: { $vendor }'s page could not be read since { $since }.
vendor-failing-unknown = as of an unknown time: { $vendor }'s page could not be read since { $since }.
uptime-bar = Uptime of { $name } over the last { $days } days
uptime-percent = { $percent } uptime
days-ago = { $days } days ago
today = Today
day-uptime = { $date }: { $percent } uptime
day-uptime-worst = { $date }: { $percent } uptime, { $worst }
day-today-worst = { $date } (today so far): { $worst }
day-no-data = { $date }: no data
day-range = { $from } – { $to }
day-incidents = { $count ->
    [one] , 1 incident
   *[other] , { $count } incidents
}

## Incidents and maintenance

scheduled-from = Scheduled { $from }
scheduled-window = Scheduled { $from } to { $until }
started-at = Started { $time }
resolved-at = Resolved { $time }
window-to = { $from } to { $until }
affected = Affected:
next-update-by = Next update by { $time }
update-overdue = An update is overdue.
update-expected-by = The next update was expected by { $time }
countdown-in = (in { $duration })
countdown-ago = ({ $duration } ago)
next-update-promised = Next update promised by { $time }.
update-on-time = The next update came on time.
update-late = The next update came { $duration } late.
breadcrumb = Breadcrumb
fact-scheduled = Scheduled
fact-started = Started
fact-resolved = Resolved
affected-components = Affected components
details = Details
field-user-impact = User impact
field-scope = Scope of impact
field-preliminary-root-cause = Preliminary root cause
field-root-cause-as-reported = Root cause as first reported
updates = Updates
no-updates = No updates have been posted yet.
postmortem = Postmortem
published-at = Published { $time }
pm-scope = Scope
pm-summary = Summary
pm-root-cause = Root cause
pm-timeline = Timeline
pm-timeline-caption = What happened when (times in UTC)
pm-time-utc = Time (UTC)
pm-event = Event
pm-follow-ups = Follow-up actions

## History

history-title = Incident history
history-page-title = { $page ->
    [1] History
   *[other] History, page { $page }
}
history-lead = Incidents and maintenance of { $name }, newest first. Days are UTC days.
history-lead-paged = Incidents and maintenance of { $name }, newest first (page { $page } of { $pages }). Days are UTC days.
history-month-empty = No incidents or maintenance reported this month.
history-pages = History pages
history-newer = ← Newer
history-older = Older →

## The embed

embed-updated = { $status }, updated { $time }
embed-full-page = Full status page

## Errors

not-found-title = Page not found
not-found-lead = There is no status page or document at this address.
see-all-pages = See the list of status pages
unavailable-title = Status page not available yet
unavailable-lead = This status page is being prepared. Please try again in a few seconds.
retry-after = Please try again in { $seconds } seconds.
quote-reference = If you ask for help, quote this reference:

## Subscribing

subscribe-title = Subscribe to updates
subscribe-lead = Get { $name }'s incident and maintenance notices by email or by webhook. No account needed; every message has a link to cancel.
subscribe-how = How
subscribe-by-email = By email
subscribe-email = Email address
subscribe-email-hint = We send a confirmation link first; nothing else until you open it.
subscribe-by-webhook = By webhook
subscribe-url = Webhook URL
subscribe-url-hint = Signed per the Standard Webhooks specification. Slack, Discord and Microsoft Teams incoming-webhook URLs get messages in their own format.
subscribe-contact = Contact email for delivery problems (optional)
subscribe-language = Language of the messages
subscribe-components = Which components
subscribe-components-hint = Leave every box empty for the whole page. Incidents of critical impact reach every subscriber.
subscribe-changes = Status changes
subscribe-changes-hint = Incidents and maintenance are always sent. This adds a notice each time one of your components changes status, with or without an incident.
subscribe-changes-check = Also tell me when a component's status changes
subscribe-button = Subscribe
subscribe-secret = Your signing secret, shown only this once:
subscribe-manage = Keep this link to manage or cancel the subscription:
back-to-page = Back to the status page

## The support form

support-title = Contact support
support-lead = Tell us what is wrong. This form works even when you cannot sign in to { $name }.
support-known = We know about
support-known-hint = If this is your problem, there is no need to write: the incident page has every update. If your problem is different, tell us below.
support-trap = Leave this field empty
support-name = Your name
support-email = Email address
support-email-hint = We reply to this address.
support-topic = What is it about?
support-topic-choose = Choose a topic
support-topic-sign_in = I can't sign in
support-topic-outage = Something is down or slow
support-topic-billing = Billing
support-topic-other = Something else
support-component-none = None, or not sure
support-component = Affected part of the service (optional)
support-account = Account, username or customer number (optional)
support-account-hint = Never your password.
support-message = What happened?
support-message-hint = What you tried, what you saw, since when.
support-copy = Send me a copy by email
support-send = Send to support
support-next = What happens next
support-next-text = You get a reference at once. A person on the support team reads every message and replies by email; when many people report the same problem, we post updates on the status page first.
support-sent-title = Message received
support-reference = Your reference:
support-keep = Keep it: quote it when you write again or call us, and we find your message at once.
support-sent-reply = A person on the support team reads your message and replies by email to the address you gave.
support-sent-status = When many people report the same problem, we post updates on the status page first: it is the quickest way to know where things stand.
support-already-known = We already know about
support-another = Send another message

## Reading a page that is not public

access-title = Sign in to read { $name }
access-not-public = This status page is not public.
access-password-or-email = Type its password, or get a sign-in link by email.
access-password-only = Type its password.
access-email-only = Get a sign-in link by email.
access-password = Page password
access-sign-in = Sign in
access-email = Work email address
access-email-hint = If your address may read this page, we mail you a link. It works once, for 15 minutes.
access-email-button = Email me a sign-in link
access-no-mail = Sign-in links by email are not available: this Herald has no mail server set up.
access-ask = Readers of this page are let in by the people who run it: ask them for access.
access-responders = Responders of this page:
access-console = sign in to the console
access-new-link = Ask for a new sign-in link
access-link-ready = Your sign-in link is ready. It works once.
access-continue = Continue to { $name }
access-signed-in = You can read { $name } in this browser.
access-sign-out = Sign out

## What the public forms answer (notices and result pages)

notice-fix-fields = Please correct the marked fields.
notice-no-mail = Email notifications are not available here: this status page has no mail server set up. You can subscribe with a webhook instead, or follow the page's Atom feed.
subscribe-too-many = Too many subscription requests; please try again in { $seconds } seconds.
subscribe-inbox-title = Check your inbox
subscribe-inbox-text = If this address can receive mail, a confirmation link is on its way. Nothing else is sent until it is opened.
subscribe-webhook-title = Webhook subscribed
subscribe-webhook-text = Notifications will be posted to your URL, signed with the secret below.
subscribe-confirmed-title = Subscription confirmed
subscribe-confirmed-text = You will receive { $name }'s status notifications. Every message has a link to cancel.
subscribe-confirm-dead = The confirmation link has expired or is not valid. Subscribe again to get a new one.
subscribe-yours-title = Your subscription
subscribe-yours-text = { $who } receives { $name }'s status notifications.
subscribe-unsubscribe = Unsubscribe
subscribe-cancelled-title = Not subscribed
subscribe-cancelled-text = This subscription is already cancelled.
subscribe-unsubscribed-title = Unsubscribed
subscribe-unsubscribed-text = You will not receive { $name }'s status notifications any more.
link-dead-title = This link does not work
link-dead-text = The link is not valid any more.
support-not-accepted = We could not accept this message. Please check it and send it again in a few seconds.
support-fix-fields = Please correct the fields marked below; what you typed is kept.
support-expired = This form was open for a long time. Please check your message and send it again.
support-too-many = Too many messages were sent from your network. Please wait { $seconds } seconds and send it again; what you typed is kept.
support-overloaded = We are receiving more messages than we can keep while our systems recover. Please send yours again in a few minutes; what you typed is kept.
support-not-saved = Your message could not be saved just now. Please send it again in a minute.
access-form-expired = This form has expired or did not come from this page. Please try again.
access-no-password = This page has no password.
access-type-password = Type the page's password.
access-wrong-password = That is not this page's password.
access-link-sent = If { $email } may read this page, a sign-in link is on its way to it. It works once, for { $minutes } minutes.
access-no-links = This page does not send sign-in links.
access-link-expired = This sign-in link has expired: links work for 15 minutes. Ask for a new one.
access-link-invalid = This is not a sign-in link of this page. Ask for a new one.
access-link-used = This sign-in link was used already, or has expired. Ask for a new one.

## What a field of a public form is told when it is refused

form-error-email = Enter an email address such as name@example.com.
support-error-name-empty = Enter your name.
support-error-too-long = Use at most { $max } characters.
support-error-name-line = Write your name on one line, without special characters.
support-error-topic-empty = Choose what your message is about.
support-error-topic-unknown = Choose one of the listed topics.
support-error-component = Choose one of the listed components, or none.
support-error-account-line = Write the account on one line, without special characters.
support-error-message-empty = Tell us what happened.
support-error-message-short = Tell us a little more (at least { $min } characters).
support-error-message-long = Use at most { $max } characters (this is { $length }).
support-error-control = Remove the special (control) characters.
subscribe-error-url = Enter the https:// address of a server that can be reached from the internet.
subscribe-error-contact = Enter an email address such as name@example.com, or leave the field empty.
subscribe-error-components = Choose among the listed components.
subscribe-error-language = Choose one of the listed languages.
subscribe-error-type = Choose email or webhook.
