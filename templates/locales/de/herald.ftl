# Herald's own words on public status pages, their forms and their mails.
# Placeables: { $name } is a value; a { $time } is drawn as a <time> element, a { $link } as a
# link, so only their place in the sentence is the translator's.

## The frame of every page

skip-to-content = Zum Hauptinhalt springen
page-status-title = Status von { $name }
page-title-with = { $title } · Status von { $name }
nav-status = Status
nav-history = Verlauf
nav-subscribe = Abonnieren
nav-support = Support
language-switcher = Sprache
feed-atom-title = { $name }: Störungsverlauf (Atom)
feed-rss-title = { $name }: Störungsverlauf (RSS)
feed-ics-title = { $name }: Wartungskalender (iCalendar)
stale-notice = Live-Daten sind vorübergehend nicht verfügbar. Angezeigt wird der Stand vom { $time }.
data-as-of = Datenstand: { $time }. Zeiten werden in der Zeitzone { $zone } angezeigt, bei aktiviertem JavaScript in Ihrer eigenen Zeitzone.
footer-atom = Atom-Feed
footer-rss = RSS-Feed
footer-ics = Wartungskalender
powered-by = Bereitgestellt mit Herald
original-language = Nicht übersetzt: Anzeige in der Originalsprache.
page-time = Seitenzeit

## Statuses

component-status-operational = Betriebsbereit
component-status-degraded_performance = Leistung beeinträchtigt
component-status-partial_outage = Teilweiser Ausfall
component-status-major_outage = Schwerer Ausfall
component-status-under_maintenance = Wartungsarbeiten
indicator-none = Alle Systeme betriebsbereit
indicator-minor = Geringfügige Dienststörung
indicator-major = Teilweiser Systemausfall
indicator-critical = Schwerer Systemausfall
indicator-maintenance = Wartungsarbeiten am Dienst
impact-none = Keine Auswirkungen
impact-minor = Geringe Auswirkungen
impact-major = Erhebliche Auswirkungen
impact-critical = Kritische Auswirkungen
incident-status-investigating = Wird untersucht
incident-status-identified = Ursache identifiziert
incident-status-monitoring = Wird beobachtet
incident-status-resolved = Behoben
incident-status-postmortem = Post-Mortem
maintenance-status-scheduled = Geplant
maintenance-status-in_progress = Wird durchgeführt
maintenance-status-verifying = Wird überprüft
maintenance-status-completed = Abgeschlossen
kind-incident = Störung
kind-advisory = Hinweis
kind-maintenance = Wartung
follow-up-open = Offen
follow-up-in_progress = In Bearbeitung
follow-up-done = Erledigt
no-data = Keine Daten

## Durations, coarse: 45 s, 12 Min., 1 Std. 5 Min., 2 T. 3 Std.

duration-seconds = { $s } s
duration-minutes = { $m } Min.
duration-hours = { $h } Std.
duration-hours-minutes = { $h } Std. { $m } Min.
duration-days = { $d } T.
duration-days-hours = { $d } T. { $h } Std.

## The overview

overall-status = Gesamtstatus
signin-affected = Die Anmeldung ist beeinträchtigt.
signin-help-link = Probleme bei der Anmeldung? Support kontaktieren
signin-help-after = Das Formular funktioniert ohne Konto.
active-incidents = Aktuelle Störungen
maintenance-in-progress = Laufende Wartungsarbeiten
scheduled-maintenance = Geplante Wartungsarbeiten
vendors-heading = Von unseren Anbietern gemeldet
vendor-maintenance = (Wartung)
vendor-status-since = { $status } seit { $time }.
vendor-status = { $status }.
vendor-affects = Betrifft bei uns: { $components }. Dies ist die Meldung von { $vendor }, nicht unsere eigene.
components-heading = Komponenten
group-count = { $count ->
    [one] ({ $count } Komponente)
   *[other] ({ $count } Komponenten)
}
no-components = Auf dieser Seite sind noch keine Komponenten aufgeführt.
stay-informed = Auf dem Laufenden bleiben
link-history = Störungsverlauf
link-subscribe = Updates abonnieren
link-support = Support kontaktieren
link-atom = Atom-Feed
link-rss = RSS-Feed
link-ics = Wartungskalender (iCalendar)

## A component

component-vendor = Status laut der Seite von { $vendor } ({ $component })
vendor-last-known = Letzter bekannter Status
vendor-failing = Stand { $time }: Die Seite von { $vendor } kann seit { $since } nicht abgerufen werden.
vendor-failing-unknown = Stand unbekannt: Die Seite von { $vendor } kann seit { $since } nicht abgerufen werden.
uptime-bar = Verfügbarkeit von { $name } in den letzten { $days } Tagen
uptime-percent = { $percent } Verfügbarkeit
days-ago = vor { $days } Tagen
today = Heute
day-uptime = { $date }: { $percent } Verfügbarkeit
day-uptime-worst = { $date }: { $percent } Verfügbarkeit, { $worst }
day-today-worst = { $date } (heute bisher): { $worst }
day-no-data = { $date }: keine Daten
day-range = { $from } – { $to }
day-incidents = { $count ->
    [one] , { $count } Störung
   *[other] , { $count } Störungen
}

## Incidents and maintenance

scheduled-from = Geplant ab { $from }
scheduled-window = Geplant von { $from } bis { $until }
started-at = Beginn: { $time }
resolved-at = Behoben: { $time }
window-to = { $from } bis { $until }
affected = Betroffen:
next-update-by = Nächstes Update bis { $time }
update-overdue = Ein Update ist überfällig.
update-expected-by = Das nächste Update wurde bis { $time } erwartet
countdown-in = (in { $duration })
countdown-ago = (vor { $duration })
next-update-promised = Nächstes Update zugesagt bis { $time }.
update-on-time = Das nächste Update kam pünktlich.
update-late = Das nächste Update kam { $duration } zu spät.
breadcrumb = Brotkrümelnavigation
fact-scheduled = Geplant
fact-started = Beginn
fact-resolved = Behoben
affected-components = Betroffene Komponenten
details = Details
field-user-impact = Auswirkungen für Nutzer
field-scope = Umfang der Auswirkungen
field-preliminary-root-cause = Vorläufige Ursache
field-root-cause-as-reported = Ursache laut erster Meldung
updates = Updates
no-updates = Es wurden noch keine Updates veröffentlicht.
postmortem = Post-Mortem
published-at = Veröffentlicht: { $time }
pm-scope = Umfang
pm-summary = Zusammenfassung
pm-root-cause = Ursache
pm-timeline = Zeitverlauf
pm-timeline-caption = Was wann geschah (Zeiten in UTC)
pm-time-utc = Uhrzeit (UTC)
pm-event = Ereignis
pm-follow-ups = Folgemaßnahmen

## History

history-title = Störungsverlauf
history-page-title = { $page ->
    [1] Verlauf
   *[other] Verlauf, Seite { $page }
}
history-lead = Störungen und Wartungsarbeiten von { $name }, neueste zuerst. Tage sind UTC-Tage.
history-lead-paged = Störungen und Wartungsarbeiten von { $name }, neueste zuerst (Seite { $page } von { $pages }). Tage sind UTC-Tage.
history-month-empty = In diesem Monat wurden keine Störungen oder Wartungsarbeiten gemeldet.
history-pages = Verlaufsseiten
history-newer = ← Neuer
history-older = Älter →

## The embed

embed-updated = { $status }, aktualisiert am { $time }
embed-full-page = Vollständige Statusseite

## Errors

not-found-title = Seite nicht gefunden
not-found-lead = Unter dieser Adresse gibt es weder eine Statusseite noch ein Dokument.
see-all-pages = Liste der Statusseiten anzeigen
unavailable-title = Statusseite noch nicht verfügbar
unavailable-lead = Diese Statusseite wird gerade vorbereitet. Bitte versuchen Sie es in einigen Sekunden erneut.
retry-after = Bitte versuchen Sie es in { $seconds } Sekunden erneut.
quote-reference = Wenn Sie Hilfe anfordern, geben Sie bitte diese Referenz an:

## Subscribing

subscribe-title = Updates abonnieren
subscribe-lead = Erhalten Sie die Störungs- und Wartungsmeldungen von { $name } per E-Mail oder Webhook. Kein Konto erforderlich; jede Nachricht enthält einen Link zum Abbestellen.
subscribe-how = Zustellung
subscribe-by-email = Per E-Mail
subscribe-email = E-Mail-Adresse
subscribe-email-hint = Wir senden zuerst einen Bestätigungslink; weitere Nachrichten erst, nachdem Sie ihn geöffnet haben.
subscribe-by-webhook = Per Webhook
subscribe-url = Webhook-URL
subscribe-url-hint = Signiert gemäß der Spezifikation Standard Webhooks. Incoming-Webhook-URLs von Slack, Discord und Microsoft Teams erhalten Nachrichten im jeweils eigenen Format.
subscribe-contact = Kontakt-E-Mail-Adresse bei Zustellproblemen (optional)
subscribe-language = Sprache der Nachrichten
subscribe-components = Komponenten
subscribe-components-hint = Lassen Sie alle Kästchen leer, um die gesamte Seite zu abonnieren. Störungen mit kritischen Auswirkungen erreichen alle Abonnenten.
subscribe-changes = Statusänderungen
subscribe-changes-hint = Störungen und Wartungsarbeiten werden immer gesendet. Mit dieser Option erhalten Sie zusätzlich eine Meldung, sobald sich der Status einer Ihrer Komponenten ändert, mit oder ohne Störung.
subscribe-changes-check = Auch benachrichtigen, wenn sich der Status einer Komponente ändert
subscribe-button = Abonnieren
subscribe-secret = Ihr Signaturgeheimnis, das nur dieses eine Mal angezeigt wird:
subscribe-manage = Bewahren Sie diesen Link auf, um das Abonnement zu verwalten oder zu kündigen:
back-to-page = Zurück zur Statusseite

## The support form

support-title = Support kontaktieren
support-lead = Beschreiben Sie uns das Problem. Dieses Formular funktioniert auch, wenn Sie sich nicht bei { $name } anmelden können.
support-known = Bekannte Störungen
support-known-hint = Wenn es sich um Ihr Problem handelt, müssen Sie uns nicht schreiben: Auf der Störungsseite finden Sie alle Updates. Wenn Ihr Problem ein anderes ist, beschreiben Sie es bitte unten.
support-trap = Dieses Feld bitte leer lassen
support-name = Ihr Name
support-email = E-Mail-Adresse
support-email-hint = Wir antworten an diese Adresse.
support-topic = Worum geht es?
support-topic-choose = Thema auswählen
support-topic-sign_in = Ich kann mich nicht anmelden
support-topic-outage = Etwas ist ausgefallen oder langsam
support-topic-billing = Abrechnung
support-topic-other = Etwas anderes
support-component-none = Keiner, oder ich weiß es nicht
support-component = Betroffener Teil des Dienstes (optional)
support-account = Konto, Benutzername oder Kundennummer (optional)
support-account-hint = Niemals Ihr Passwort.
support-message = Was ist passiert?
support-message-hint = Was Sie versucht haben, was Sie gesehen haben und seit wann.
support-copy = Eine Kopie per E-Mail an mich senden
support-send = An den Support senden
support-next = So geht es weiter
support-next-text = Sie erhalten sofort eine Referenz. Jede Nachricht wird von einer Person aus dem Support-Team gelesen und per E-Mail beantwortet. Wenn viele Personen dasselbe Problem melden, veröffentlichen wir Updates zuerst auf der Statusseite.
support-sent-title = Nachricht erhalten
support-reference = Ihre Referenz:
support-keep = Bitte bewahren Sie sie auf und geben Sie sie an, wenn Sie uns erneut schreiben oder anrufen: So finden wir Ihre Nachricht sofort.
support-sent-reply = Eine Person aus dem Support-Team liest Ihre Nachricht und antwortet per E-Mail an die von Ihnen angegebene Adresse.
support-sent-status = Wenn viele Personen dasselbe Problem melden, veröffentlichen wir Updates zuerst auf der Statusseite: Dort erfahren Sie am schnellsten den aktuellen Stand.
support-already-known = Bereits bekannte Störungen
support-another = Weitere Nachricht senden

## Reading a page that is not public

access-title = Anmelden, um { $name } anzuzeigen
access-not-public = Diese Statusseite ist nicht öffentlich.
access-password-or-email = Geben Sie das Passwort der Seite ein oder fordern Sie einen Anmeldelink per E-Mail an.
access-password-only = Geben Sie das Passwort der Seite ein.
access-email-only = Fordern Sie einen Anmeldelink per E-Mail an.
access-password = Passwort der Seite
access-sign-in = Anmelden
access-email = Geschäftliche E-Mail-Adresse
access-email-hint = Wenn Ihre Adresse diese Seite lesen darf, senden wir Ihnen einen Link per E-Mail. Er kann einmal verwendet werden und ist 15 Minuten lang gültig.
access-email-button = Anmeldelink per E-Mail senden
access-no-mail = Anmeldelinks per E-Mail sind nicht verfügbar: Für diese Herald-Instanz ist kein Mailserver eingerichtet.
access-ask = Den Zugang zu dieser Seite vergeben die Personen, die sie betreiben: Bitte wenden Sie sich an diese.
access-responders = Für das Team dieser Seite:
access-console = in der Konsole anmelden
access-new-link = Neuen Anmeldelink anfordern
access-link-ready = Ihr Anmeldelink ist bereit. Er ist nur einmal gültig.
access-continue = Weiter zu { $name }
access-signed-in = Sie können { $name } in diesem Browser lesen.
access-sign-out = Abmelden

## What the public forms answer (notices and result pages)

notice-fix-fields = Bitte korrigieren Sie die markierten Felder.
notice-no-mail = E-Mail-Benachrichtigungen sind hier nicht verfügbar: Für diese Statusseite ist kein Mailserver eingerichtet. Sie können stattdessen per Webhook abonnieren oder dem Atom-Feed der Seite folgen.
subscribe-too-many = Zu viele Abonnementanfragen. Bitte versuchen Sie es in { $seconds } Sekunden erneut.
subscribe-inbox-title = Bitte prüfen Sie Ihren Posteingang
subscribe-inbox-text = Wenn diese Adresse E-Mails empfangen kann, ist ein Bestätigungslink unterwegs. Weitere Nachrichten werden erst gesendet, nachdem er geöffnet wurde.
subscribe-webhook-title = Webhook abonniert
subscribe-webhook-text = Benachrichtigungen werden an Ihre URL gesendet und mit dem unten angezeigten Geheimnis signiert.
subscribe-confirmed-title = Abonnement bestätigt
subscribe-confirmed-text = Sie erhalten die Statusmeldungen von { $name }. Jede Nachricht enthält einen Link zum Abbestellen.
subscribe-confirm-dead = Der Bestätigungslink ist abgelaufen oder ungültig. Abonnieren Sie erneut, um einen neuen zu erhalten.
subscribe-yours-title = Ihr Abonnement
subscribe-yours-text = { $who } erhält die Statusmeldungen von { $name }.
subscribe-unsubscribe = Abbestellen
subscribe-cancelled-title = Nicht abonniert
subscribe-cancelled-text = Dieses Abonnement wurde bereits gekündigt.
subscribe-unsubscribed-title = Abbestellt
subscribe-unsubscribed-text = Sie erhalten keine Statusmeldungen von { $name } mehr.
link-dead-title = Dieser Link funktioniert nicht
link-dead-text = Der Link ist nicht mehr gültig.
support-not-accepted = Wir konnten diese Nachricht nicht annehmen. Bitte überprüfen Sie sie und senden Sie sie in einigen Sekunden erneut.
support-fix-fields = Bitte korrigieren Sie die unten markierten Felder; Ihre Eingaben bleiben erhalten.
support-expired = Dieses Formular war lange geöffnet. Bitte überprüfen Sie Ihre Nachricht und senden Sie sie erneut.
support-too-many = Aus Ihrem Netzwerk wurden zu viele Nachrichten gesendet. Bitte warten Sie { $seconds } Sekunden und senden Sie die Nachricht dann erneut; Ihre Eingaben bleiben erhalten.
support-overloaded = Wir erhalten mehr Nachrichten, als wir speichern können, während sich unsere Systeme erholen. Bitte senden Sie Ihre Nachricht in einigen Minuten erneut; Ihre Eingaben bleiben erhalten.
support-not-saved = Ihre Nachricht konnte gerade nicht gespeichert werden. Bitte senden Sie sie in einer Minute erneut.
access-form-expired = Dieses Formular ist abgelaufen oder stammt nicht von dieser Seite. Bitte versuchen Sie es erneut.
access-no-password = Diese Seite hat kein Passwort.
access-type-password = Geben Sie das Passwort der Seite ein.
access-wrong-password = Das ist nicht das Passwort dieser Seite.
access-link-sent = Wenn { $email } diese Seite lesen darf, ist ein Anmeldelink an diese Adresse unterwegs. Er kann einmal verwendet werden und ist { $minutes } Minuten lang gültig.
access-no-links = Diese Seite versendet keine Anmeldelinks.
access-link-expired = Dieser Anmeldelink ist abgelaufen: Links sind 15 Minuten lang gültig. Fordern Sie einen neuen an.
access-link-invalid = Dies ist kein Anmeldelink dieser Seite. Fordern Sie einen neuen an.
access-link-used = Dieser Anmeldelink wurde bereits verwendet oder ist abgelaufen. Fordern Sie einen neuen an.

## What a field of a public form is told when it is refused

form-error-email = Geben Sie eine E-Mail-Adresse wie name@example.com ein.
support-error-name-empty = Geben Sie Ihren Namen ein.
support-error-too-long = Verwenden Sie höchstens { $max } Zeichen.
support-error-name-line = Schreiben Sie Ihren Namen in eine Zeile, ohne Sonderzeichen.
support-error-topic-empty = Wählen Sie aus, worum es in Ihrer Nachricht geht.
support-error-topic-unknown = Wählen Sie eines der aufgeführten Themen.
support-error-component = Wählen Sie eine der aufgeführten Komponenten oder keine.
support-error-account-line = Schreiben Sie das Konto in eine Zeile, ohne Sonderzeichen.
support-error-message-empty = Beschreiben Sie uns, was passiert ist.
support-error-message-short = Beschreiben Sie es bitte etwas ausführlicher (mindestens { $min } Zeichen).
support-error-message-long = Verwenden Sie höchstens { $max } Zeichen (derzeit { $length }).
support-error-control = Entfernen Sie die Sonderzeichen (Steuerzeichen).
subscribe-error-url = Geben Sie die https://-Adresse eines Servers ein, der aus dem Internet erreichbar ist.
subscribe-error-contact = Geben Sie eine E-Mail-Adresse wie name@example.com ein oder lassen Sie das Feld leer.
subscribe-error-components = Wählen Sie aus den aufgeführten Komponenten aus.
subscribe-error-language = Wählen Sie eine der aufgeführten Sprachen.
subscribe-error-type = Wählen Sie E-Mail oder Webhook.
