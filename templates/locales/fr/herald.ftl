# Herald's own words on public status pages, their forms and their mails.
# Placeables: { $name } is a value; a { $time } is drawn as a <time> element, a { $link } as a
# link, so only their place in the sentence is the translator's.

## The frame of every page

skip-to-content = Aller au contenu principal
page-status-title = Statut de { $name }
page-title-with = { $title } · Statut de { $name }
nav-status = Statut
nav-history = Historique
nav-subscribe = S’abonner
nav-support = Assistance
language-switcher = Langue
feed-atom-title = { $name } : historique des incidents (Atom)
feed-rss-title = { $name } : historique des incidents (RSS)
feed-ics-title = { $name } : calendrier des maintenances (iCalendar)
stale-notice = Les données en direct sont temporairement indisponibles ; les données affichées datent du { $time }.
data-as-of = Données du { $time }. Les heures sont indiquées dans le fuseau horaire { $zone }, ou dans votre propre fuseau horaire si JavaScript est activé.
footer-atom = Flux Atom
footer-rss = Flux RSS
footer-ics = Calendrier des maintenances
powered-by = Propulsé par Herald
original-language = Non traduit : affiché dans la langue d’origine.
page-time = heure de la page

## Statuses

component-status-operational = Opérationnel
component-status-degraded_performance = Performances dégradées
component-status-partial_outage = Panne partielle
component-status-major_outage = Panne majeure
component-status-under_maintenance = En maintenance
indicator-none = Tous les systèmes sont opérationnels
indicator-minor = Perturbation mineure du service
indicator-major = Panne partielle des systèmes
indicator-critical = Panne majeure des systèmes
indicator-maintenance = Service en maintenance
impact-none = Aucun impact
impact-minor = Impact mineur
impact-major = Impact majeur
impact-critical = Impact critique
incident-status-investigating = Investigation en cours
incident-status-identified = Cause identifiée
incident-status-monitoring = Surveillance en cours
incident-status-resolved = Résolu
incident-status-postmortem = Post-mortem
maintenance-status-scheduled = Planifiée
maintenance-status-in_progress = En cours
maintenance-status-verifying = Vérification en cours
maintenance-status-completed = Terminée
kind-incident = Incident
kind-advisory = Avis
kind-maintenance = Maintenance
follow-up-open = Ouverte
follow-up-in_progress = En cours
follow-up-done = Terminée
no-data = Aucune donnée

## Durations, coarse: 45 s, 12 min, 1 h 5 min, 2 j 3 h

duration-seconds = { $s } s
duration-minutes = { $m } min
duration-hours = { $h } h
duration-hours-minutes = { $h } h { $m } min
duration-days = { $d } j
duration-days-hours = { $d } j { $h } h

## The overview

overall-status = État général
signin-affected = La connexion est perturbée.
signin-help-link = Impossible de vous connecter ? Contactez l’assistance
signin-help-after = Le formulaire fonctionne sans compte.
active-incidents = Incidents en cours
maintenance-in-progress = Maintenance en cours
scheduled-maintenance = Maintenance planifiée
vendors-heading = Signalé par nos fournisseurs
vendor-maintenance = (maintenance)
vendor-status-since = { $status } depuis le { $time }.
vendor-status = { $status }.
vendor-affects = Concerne chez nous : { $components }. Ce rapport est celui de { $vendor }, pas le nôtre.
components-heading = Composants
group-count = { $count ->
    [one] ({ $count } composant)
   *[other] ({ $count } composants)
}
no-components = Aucun composant n’est encore répertorié sur cette page.
stay-informed = Rester informé
link-history = Historique des incidents
link-subscribe = S’abonner aux mises à jour
link-support = Contacter l’assistance
link-atom = Flux Atom
link-rss = Flux RSS
link-ics = Calendrier des maintenances (iCalendar)

## A component

component-vendor = État selon la page de { $vendor } ({ $component })
vendor-last-known = Dernier état connu
vendor-failing = au { $time } : la page de { $vendor } ne peut plus être consultée depuis le { $since }.
vendor-failing-unknown = à une date inconnue : la page de { $vendor } ne peut plus être consultée depuis le { $since }.
uptime-bar = Disponibilité de { $name } au cours des { $days } derniers jours
uptime-percent = { $percent } de disponibilité
days-ago = il y a { $days } jours
today = Aujourd’hui
day-uptime = { $date } : { $percent } de disponibilité
day-uptime-worst = { $date } : { $percent } de disponibilité, { $worst }
day-today-worst = { $date } (aujourd’hui, jusqu’à présent) : { $worst }
day-no-data = { $date } : aucune donnée
day-range = du { $from } au { $to }
day-incidents = { $count ->
    [one] , { $count } incident
   *[other] , { $count } incidents
}

## Incidents and maintenance

scheduled-from = Début prévu le { $from }
scheduled-window = Prévu du { $from } au { $until }
started-at = Début : { $time }
resolved-at = Résolution : { $time }
window-to = Du { $from } au { $until }
affected = Composants concernés :
next-update-by = Prochaine mise à jour d’ici le { $time }
update-overdue = Une mise à jour est en retard.
update-expected-by = La prochaine mise à jour était attendue pour le { $time }
countdown-in = (dans { $duration })
countdown-ago = (il y a { $duration })
next-update-promised = Prochaine mise à jour annoncée pour le { $time }.
update-on-time = La mise à jour suivante a été publiée à temps.
update-late = La mise à jour suivante a été publiée avec { $duration } de retard.
breadcrumb = Fil d’Ariane
fact-scheduled = Date prévue
fact-started = Début
fact-resolved = Résolution
affected-components = Composants concernés
details = Détails
field-user-impact = Impact pour les utilisateurs
field-scope = Étendue de l’impact
field-preliminary-root-cause = Cause première provisoire
field-root-cause-as-reported = Cause première telle que signalée initialement
updates = Mises à jour
no-updates = Aucune mise à jour n’a encore été publiée.
postmortem = Post-mortem
published-at = Publié le { $time }
pm-scope = Étendue
pm-summary = Résumé
pm-root-cause = Cause première
pm-timeline = Chronologie
pm-timeline-caption = Déroulement des événements (heures en UTC)
pm-time-utc = Heure (UTC)
pm-event = Événement
pm-follow-ups = Actions de suivi

## History

history-title = Historique des incidents
history-page-title = { $page ->
    [1] Historique
   *[other] Historique, page { $page }
}
history-lead = Incidents et maintenances de { $name }, du plus récent au plus ancien. Les jours sont des jours UTC.
history-lead-paged = Incidents et maintenances de { $name }, du plus récent au plus ancien (page { $page } sur { $pages }). Les jours sont des jours UTC.
history-month-empty = Aucun incident ni aucune maintenance n’a été signalé ce mois-ci.
history-pages = Pages de l’historique
history-newer = ← Plus récents
history-older = Plus anciens →

## The embed

embed-updated = { $status }, mis à jour le { $time }
embed-full-page = Page de statut complète

## Errors

not-found-title = Page introuvable
not-found-lead = Aucune page de statut ni aucun document ne se trouve à cette adresse.
see-all-pages = Voir la liste des pages de statut
unavailable-title = Page de statut pas encore disponible
unavailable-lead = Cette page de statut est en cours de préparation. Veuillez réessayer dans quelques secondes.
retry-after = Veuillez réessayer dans { $seconds } secondes.
quote-reference = Si vous demandez de l’aide, veuillez indiquer cette référence :

## Subscribing

subscribe-title = S’abonner aux mises à jour
subscribe-lead = Recevez les avis d’incident et de maintenance de { $name } par e-mail ou par webhook. Aucun compte n’est nécessaire ; chaque message contient un lien de désabonnement.
subscribe-how = Mode de réception
subscribe-by-email = Par e-mail
subscribe-email = Adresse e-mail
subscribe-email-hint = Nous vous envoyons d’abord un lien de confirmation, et rien d’autre tant que vous ne l’avez pas ouvert.
subscribe-by-webhook = Par webhook
subscribe-url = URL du webhook
subscribe-url-hint = Signé conformément à la spécification Standard Webhooks. Les URL de webhooks entrants Slack, Discord et Microsoft Teams reçoivent les messages dans leur propre format.
subscribe-contact = Adresse e-mail de contact en cas de problème de distribution (facultatif)
subscribe-language = Langue des messages
subscribe-components = Composants concernés
subscribe-components-hint = Laissez toutes les cases vides pour suivre toute la page. Les incidents à impact critique sont envoyés à tous les abonnés.
subscribe-changes = Changements de statut
subscribe-changes-hint = Les incidents et les maintenances sont toujours envoyés. Cette option ajoute un avis chaque fois que l’un de vos composants change de statut, avec ou sans incident.
subscribe-changes-check = M’avertir aussi lorsque le statut d’un composant change
subscribe-button = S’abonner
subscribe-secret = Votre secret de signature, affiché cette seule fois :
subscribe-manage = Conservez ce lien pour gérer ou résilier l’abonnement :
back-to-page = Retour à la page de statut

## The support form

support-title = Contacter l’assistance
support-lead = Décrivez-nous le problème. Ce formulaire fonctionne même si vous ne pouvez pas vous connecter à { $name }.
support-known = Incidents connus
support-known-hint = S’il s’agit de votre problème, inutile de nous écrire : la page de l’incident contient toutes les mises à jour. Si votre problème est différent, décrivez-le ci-dessous.
support-trap = Laissez ce champ vide
support-name = Votre nom
support-email = Adresse e-mail
support-email-hint = Nous vous répondrons à cette adresse.
support-topic = De quoi s’agit-il ?
support-topic-choose = Choisissez un sujet
support-topic-sign_in = Je ne peux pas me connecter
support-topic-outage = Quelque chose est en panne ou lent
support-topic-billing = Facturation
support-topic-other = Autre chose
support-component-none = Aucun, ou je ne sais pas
support-component = Partie du service concernée (facultatif)
support-account = Compte, nom d’utilisateur ou numéro client (facultatif)
support-account-hint = Jamais votre mot de passe.
support-message = Que s’est-il passé ?
support-message-hint = Ce que vous avez essayé, ce que vous avez constaté, et depuis quand.
support-copy = M’envoyer une copie par e-mail
support-send = Envoyer à l’assistance
support-next = Et ensuite ?
support-next-text = Vous recevez immédiatement une référence. Chaque message est lu par une personne de l’équipe d’assistance, qui répond par e-mail ; lorsque de nombreuses personnes signalent le même problème, nous publions d’abord des mises à jour sur la page de statut.
support-sent-title = Message reçu
support-reference = Votre référence :
support-keep = Conservez-la et indiquez-la si vous nous écrivez à nouveau ou nous appelez : nous retrouverons ainsi immédiatement votre message.
support-sent-reply = Une personne de l’équipe d’assistance lit votre message et vous répond par e-mail à l’adresse indiquée.
support-sent-status = Lorsque de nombreuses personnes signalent le même problème, nous publions d’abord des mises à jour sur la page de statut : c’est le moyen le plus rapide de savoir où en est la situation.
support-already-known = Incidents déjà connus
support-another = Envoyer un autre message

## Reading a page that is not public

access-title = Connectez-vous pour consulter { $name }
access-not-public = Cette page de statut n’est pas publique.
access-password-or-email = Saisissez le mot de passe de la page ou recevez un lien de connexion par e-mail.
access-password-only = Saisissez le mot de passe de la page.
access-email-only = Recevez un lien de connexion par e-mail.
access-password = Mot de passe de la page
access-sign-in = Se connecter
access-email = Adresse e-mail professionnelle
access-email-hint = Si votre adresse est autorisée à consulter cette page, nous vous envoyons un lien par e-mail. Il est utilisable une seule fois, pendant 15 minutes.
access-email-button = M’envoyer un lien de connexion
access-no-mail = Les liens de connexion par e-mail ne sont pas disponibles : aucun serveur de messagerie n’est configuré pour cette instance de Herald.
access-ask = L’accès à cette page est accordé par les personnes qui la gèrent : demandez-leur l’accès.
access-responders = Intervenants de cette page :
access-console = connectez-vous à la console
access-new-link = Demander un nouveau lien de connexion
access-link-ready = Votre lien de connexion est prêt. Il est utilisable une seule fois.
access-continue = Continuer vers { $name }
access-signed-in = Vous pouvez lire { $name } dans ce navigateur.
access-sign-out = Se déconnecter

## What the public forms answer (notices and result pages)

notice-fix-fields = Veuillez corriger les champs signalés.
notice-no-mail = Les notifications par e-mail ne sont pas disponibles ici : aucun serveur de messagerie n’est configuré pour cette page de statut. Vous pouvez vous abonner par webhook à la place, ou suivre le flux Atom de la page.
subscribe-too-many = Trop de demandes d’abonnement ; veuillez réessayer dans { $seconds } secondes.
subscribe-inbox-title = Consultez votre boîte de réception
subscribe-inbox-text = Si cette adresse peut recevoir des e-mails, un lien de confirmation est en route. Rien d’autre ne sera envoyé tant qu’il n’aura pas été ouvert.
subscribe-webhook-title = Abonnement par webhook enregistré
subscribe-webhook-text = Les avis seront envoyés à votre URL, signés avec le secret ci-dessous.
subscribe-confirmed-title = Abonnement confirmé
subscribe-confirmed-text = Vous recevrez les avis de statut de { $name }. Chaque message contient un lien de désabonnement.
subscribe-confirm-dead = Le lien de confirmation a expiré ou n’est pas valide. Abonnez-vous à nouveau pour en recevoir un nouveau.
subscribe-yours-title = Votre abonnement
subscribe-yours-text = { $who } reçoit les avis de statut de { $name }.
subscribe-unsubscribe = Se désabonner
subscribe-cancelled-title = Aucun abonnement
subscribe-cancelled-text = Cet abonnement est déjà résilié.
subscribe-unsubscribed-title = Désabonnement effectué
subscribe-unsubscribed-text = Vous ne recevrez plus les avis de statut de { $name }.
link-dead-title = Ce lien ne fonctionne pas
link-dead-text = Ce lien n’est plus valide.
support-not-accepted = Nous n’avons pas pu accepter ce message. Veuillez le vérifier et l’envoyer à nouveau dans quelques secondes.
support-fix-fields = Veuillez corriger les champs signalés ci-dessous ; votre saisie a été conservée.
support-expired = Ce formulaire est resté ouvert longtemps. Veuillez vérifier votre message et l’envoyer à nouveau.
support-too-many = Trop de messages ont été envoyés depuis votre réseau. Veuillez patienter { $seconds } secondes, puis l’envoyer à nouveau ; votre saisie a été conservée.
support-overloaded = Nous recevons plus de messages que nous ne pouvons en conserver pendant le rétablissement de nos systèmes. Veuillez renvoyer le vôtre dans quelques minutes ; votre saisie a été conservée.
support-not-saved = Votre message n’a pas pu être enregistré pour le moment. Veuillez l’envoyer à nouveau dans une minute.
access-form-expired = Ce formulaire a expiré ou ne provient pas de cette page. Veuillez réessayer.
access-no-password = Cette page n’a pas de mot de passe.
access-type-password = Saisissez le mot de passe de la page.
access-wrong-password = Ce n’est pas le mot de passe de cette page.
access-link-sent = Si l’adresse { $email } est autorisée à consulter cette page, un lien de connexion est en route vers celle-ci. Il est utilisable une seule fois, pendant { $minutes } minutes.
access-no-links = Cette page n’envoie pas de liens de connexion.
access-link-expired = Ce lien de connexion a expiré : les liens sont valables 15 minutes. Demandez-en un nouveau.
access-link-invalid = Ce n’est pas un lien de connexion de cette page. Demandez-en un nouveau.
access-link-used = Ce lien de connexion a déjà été utilisé ou a expiré. Demandez-en un nouveau.

## What a field of a public form is told when it is refused

form-error-email = Saisissez une adresse e-mail telle que name@example.com.
support-error-name-empty = Saisissez votre nom.
support-error-too-long = Utilisez { $max } caractères au maximum.
support-error-name-line = Écrivez votre nom sur une seule ligne, sans caractères spéciaux.
support-error-topic-empty = Choisissez le sujet de votre message.
support-error-topic-unknown = Choisissez l’un des sujets de la liste.
support-error-component = Choisissez l’un des composants de la liste, ou aucun.
support-error-account-line = Écrivez le compte sur une seule ligne, sans caractères spéciaux.
support-error-message-empty = Dites-nous ce qui s’est passé.
support-error-message-short = Donnez-nous un peu plus de détails (au moins { $min } caractères).
support-error-message-long = Utilisez { $max } caractères au maximum (votre texte en compte { $length }).
support-error-control = Supprimez les caractères spéciaux (caractères de contrôle).
subscribe-error-url = Saisissez l’adresse https:// d’un serveur accessible depuis Internet.
subscribe-error-contact = Saisissez une adresse e-mail telle que name@example.com, ou laissez le champ vide.
subscribe-error-components = Choisissez parmi les composants de la liste.
subscribe-error-language = Choisissez l’une des langues de la liste.
subscribe-error-type = Choisissez entre e-mail et webhook.
