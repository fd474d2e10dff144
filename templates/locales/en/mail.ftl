# Herald's words in the mails subscribers and readers receive. Mail clients show plain text
# or simple HTML: no markup here either; { $name } values are inserted as they are.

## Every notification

mail-headline-opened = New incident
mail-headline-resolved = Resolved
mail-headline-postmortem = Postmortem published
mail-headline-maintenance-scheduled = Maintenance scheduled
mail-headline-maintenance-soon = Maintenance starting soon
mail-headline-maintenance-started = Maintenance started
mail-headline-maintenance-completed = Maintenance completed
mail-headline-update = Update
mail-headline-component = Component status changed
mail-status = Status: { $status }
mail-window = Window: { $window }
mail-affected = Affected components
mail-next-update = Next update by { $time }.
mail-details = See the details on the status page
mail-details-text = Details: { $url }
mail-why = You receive this because you subscribed to { $name }.
mail-manage = Manage or cancel your subscription
mail-component-now = { $component } is now { $status }.
mail-component-vendor = { $component } is now { $status }, as { $vendor } reports on its own status page.

## Confirming a subscription

mail-confirm-subject = Confirm your subscription to { $name } status updates
mail-confirm-asked = Someone, probably you, asked to receive { $name } status updates at this address.
mail-confirm-button = Confirm my subscription
mail-confirm-open = To confirm, open this link (valid for 48 hours):
mail-confirm-valid = The link is valid for 48 hours. If you did not ask for this, ignore this message: nothing more will be sent.
mail-confirm-ignore = If you did not ask for this, ignore this message: nothing more will be sent.

## A subscription moved from another status page

mail-moved-subject = { $name } status updates have moved: confirm to keep them
mail-moved-title = Confirm to keep receiving status updates
mail-moved-intro = You subscribed to { $name } status updates on its previous status page. { $name } now posts them here:
mail-moved-button = Keep my subscription
mail-moved-open = To keep receiving them at this address, confirm with this link (valid for 48 hours):
mail-moved-valid = The link is valid for 48 hours. If you do not confirm, nothing more will be sent to you from this page.
mail-moved-ignore = If you do not confirm, nothing more will be sent to you from this page.

## A webhook paused after failures

mail-paused-subject = [{ $name }] Webhook notifications paused after repeated failures
mail-paused-title = Webhook notifications paused
mail-paused-failed = Herald could not deliver { $name } status notifications to your webhook { $url } after { $failures } consecutive failed attempts.
mail-paused-fix = Notifications to it are paused. Fix the receiver, then subscribe it again from the status page: { $page }
mail-paused-manage = Manage or cancel the subscription

## The sign-in link a reader of a private page asked for

mail-reader-subject = Sign in to { $name }
mail-reader-hello = Hello,
mail-reader-intro = here is your link to read the status page { $name }:
mail-reader-button = Read { $name }
mail-reader-once = It works once, for { $minutes } minutes. Opening it asks you to confirm before you are signed in, so a mail scanner that opens links cannot use it up.
mail-reader-why = You receive this mail because someone asked for a sign-in link for { $email } on { $name }. If that was not you, ignore it: nothing happens without the link.

## The copy a sender of the support form asked for

mail-copy-subject = [{ $name }] We received your request { $reference }
mail-copy-hello = Hello,
mail-copy-received = we received your support request. Its reference is { $reference }.
mail-copy-next = What happens next: our support team reads every request and answers at this address. If you write to us about it again, mention { $reference }.
mail-copy-status = While something is down, the status page shows what we know:
mail-copy-topic = Topic: { $topic }
mail-copy-affected = Affected: { $component }
mail-copy-no-text = This copy does not repeat what was written in the form: anyone can type any address into a contact form, and a copy must not carry their text to someone else.
mail-copy-why = You receive this copy because you asked for one on the contact form of { $name }. If that was not you, ignore it: nothing else will be sent.
