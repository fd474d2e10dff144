# Herald's own words on public status pages, their forms and their mails.
# Placeables: { $name } is a value; a { $time } is drawn as a <time> element, a { $link } as a
# link, so only their place in the sentence is the translator's.

## The frame of every page

skip-to-content = Ir al contenido principal
page-status-title = Estado de { $name }
page-title-with = { $title } · Estado de { $name }
nav-status = Estado
nav-history = Historial
nav-subscribe = Suscribirse
nav-support = Soporte
language-switcher = Idioma
feed-atom-title = { $name }: historial de incidentes (Atom)
feed-rss-title = { $name }: historial de incidentes (RSS)
feed-ics-title = { $name }: calendario de mantenimiento (iCalendar)
stale-notice = Los datos en tiempo real no están disponibles temporalmente; se muestran los datos del { $time }.
data-as-of = Datos del { $time }. Las horas se muestran en la zona horaria { $zone }, o en su propia zona horaria si JavaScript está activado.
footer-atom = Feed Atom
footer-rss = Feed RSS
footer-ics = Calendario de mantenimiento
powered-by = Con la tecnología de Herald
original-language = Sin traducir: se muestra en el idioma original.
page-time = hora de la página

## Statuses

component-status-operational = Operativo
component-status-degraded_performance = Rendimiento degradado
component-status-partial_outage = Interrupción parcial
component-status-major_outage = Interrupción grave
component-status-under_maintenance = En mantenimiento
indicator-none = Todos los sistemas operativos
indicator-minor = Interrupción menor del servicio
indicator-major = Interrupción parcial del sistema
indicator-critical = Interrupción grave del sistema
indicator-maintenance = Servicio en mantenimiento
impact-none = Sin impacto
impact-minor = Impacto menor
impact-major = Impacto importante
impact-critical = Impacto crítico
incident-status-investigating = Investigando
incident-status-identified = Identificado
incident-status-monitoring = Supervisando
incident-status-resolved = Resuelto
incident-status-postmortem = Análisis posterior
maintenance-status-scheduled = Programado
maintenance-status-in_progress = En curso
maintenance-status-verifying = En verificación
maintenance-status-completed = Completado
kind-incident = Incidente
kind-advisory = Aviso
kind-maintenance = Mantenimiento
follow-up-open = Abierta
follow-up-in_progress = En curso
follow-up-done = Completada
no-data = Sin datos

## Durations, coarse: 45 s, 12 min, 1 h 5 min, 2 d 3 h

duration-seconds = { $s } s
duration-minutes = { $m } min
duration-hours = { $h } h
duration-hours-minutes = { $h } h { $m } min
duration-days = { $d } d
duration-days-hours = { $d } d { $h } h

## The overview

overall-status = Estado general
signin-affected = El inicio de sesión está afectado.
signin-help-link = ¿No puede iniciar sesión? Póngase en contacto con soporte
signin-help-after = El formulario funciona sin cuenta.
active-incidents = Incidentes activos
maintenance-in-progress = Mantenimiento en curso
scheduled-maintenance = Mantenimiento programado
vendors-heading = Notificado por nuestros proveedores
vendor-maintenance = (mantenimiento)
vendor-status-since = { $status } desde el { $time }.
vendor-status = { $status }.
vendor-affects = Afecta a nuestros componentes: { $components }. Este es el informe de { $vendor }, no el nuestro.
components-heading = Componentes
group-count = { $count ->
    [one] ({ $count } componente)
   *[other] ({ $count } componentes)
}
no-components = Todavía no hay componentes en esta página.
stay-informed = Manténgase informado
link-history = Historial de incidentes
link-subscribe = Suscribirse a las actualizaciones
link-support = Contactar con soporte
link-atom = Feed Atom
link-rss = Feed RSS
link-ics = Calendario de mantenimiento (iCalendar)

## A component

component-vendor = Estado según la página de { $vendor } ({ $component })
vendor-last-known = Último estado conocido
vendor-failing = a fecha de { $time }: no se ha podido leer la página de { $vendor } desde el { $since }.
vendor-failing-unknown = en una fecha desconocida: no se ha podido leer la página de { $vendor } desde el { $since }.
uptime-bar = Disponibilidad de { $name } en los últimos { $days } días
uptime-percent = { $percent } de disponibilidad
days-ago = hace { $days } días
today = Hoy
day-uptime = { $date }: { $percent } de disponibilidad
day-uptime-worst = { $date }: { $percent } de disponibilidad, { $worst }
day-today-worst = { $date } (hoy hasta ahora): { $worst }
day-no-data = { $date }: sin datos
day-range = del { $from } al { $to }
day-incidents = { $count ->
    [one] , { $count } incidente
   *[other] , { $count } incidentes
}

## Incidents and maintenance

scheduled-from = Programado a partir del { $from }
scheduled-window = Programado del { $from } al { $until }
started-at = Inicio: { $time }
resolved-at = Resolución: { $time }
window-to = Del { $from } al { $until }
affected = Afectados:
next-update-by = Próxima actualización antes del { $time }
update-overdue = Hay una actualización retrasada.
update-expected-by = La próxima actualización se esperaba antes del { $time }
countdown-in = (dentro de { $duration })
countdown-ago = (hace { $duration })
next-update-promised = Próxima actualización prevista antes del { $time }.
update-on-time = La siguiente actualización llegó a tiempo.
update-late = La siguiente actualización llegó con { $duration } de retraso.
breadcrumb = Ruta de navegación
fact-scheduled = Programado
fact-started = Inicio
fact-resolved = Resolución
affected-components = Componentes afectados
details = Detalles
field-user-impact = Impacto para los usuarios
field-scope = Alcance del impacto
field-preliminary-root-cause = Causa raíz preliminar
field-root-cause-as-reported = Causa raíz según el primer informe
updates = Actualizaciones
no-updates = Todavía no se ha publicado ninguna actualización.
postmortem = Análisis posterior
published-at = Publicado el { $time }
pm-scope = Alcance
pm-summary = Resumen
pm-root-cause = Causa raíz
pm-timeline = Cronología
pm-timeline-caption = Qué ocurrió y cuándo (horas en UTC)
pm-time-utc = Hora (UTC)
pm-event = Evento
pm-follow-ups = Acciones de seguimiento

## History

history-title = Historial de incidentes
history-page-title = { $page ->
    [1] Historial
   *[other] Historial, página { $page }
}
history-lead = Incidentes y mantenimientos de { $name }, los más recientes primero. Los días son días UTC.
history-lead-paged = Incidentes y mantenimientos de { $name }, los más recientes primero (página { $page } de { $pages }). Los días son días UTC.
history-month-empty = No se notificaron incidentes ni mantenimientos este mes.
history-pages = Páginas del historial
history-newer = ← Más recientes
history-older = Más antiguos →

## The embed

embed-updated = { $status }, actualizado el { $time }
embed-full-page = Página de estado completa

## Errors

not-found-title = Página no encontrada
not-found-lead = No hay ninguna página de estado ni ningún documento en esta dirección.
see-all-pages = Ver la lista de páginas de estado
unavailable-title = La página de estado aún no está disponible
unavailable-lead = Esta página de estado se está preparando. Vuelva a intentarlo en unos segundos.
retry-after = Vuelva a intentarlo en { $seconds } segundos.
quote-reference = Si solicita ayuda, indique esta referencia:

## Subscribing

subscribe-title = Suscribirse a las actualizaciones
subscribe-lead = Reciba los avisos de incidentes y mantenimiento de { $name } por correo electrónico o por webhook. No necesita una cuenta; cada mensaje incluye un enlace para cancelar la suscripción.
subscribe-how = Forma de recepción
subscribe-by-email = Por correo electrónico
subscribe-email = Dirección de correo electrónico
subscribe-email-hint = Primero le enviamos un enlace de confirmación; no le enviaremos nada más hasta que lo abra.
subscribe-by-webhook = Por webhook
subscribe-url = URL del webhook
subscribe-url-hint = Firmado según la especificación Standard Webhooks. Las URL de webhooks entrantes de Slack, Discord y Microsoft Teams reciben los mensajes en su propio formato.
subscribe-contact = Correo electrónico de contacto para problemas de entrega (opcional)
subscribe-language = Idioma de los mensajes
subscribe-components = Componentes
subscribe-components-hint = Deje todas las casillas vacías para suscribirse a toda la página. Los incidentes de impacto crítico se envían a todos los suscriptores.
subscribe-changes = Cambios de estado
subscribe-changes-hint = Los incidentes y el mantenimiento se envían siempre. Esta opción añade un aviso cada vez que uno de sus componentes cambia de estado, haya o no un incidente.
subscribe-changes-check = Avisarme también cuando cambie el estado de un componente
subscribe-button = Suscribirse
subscribe-secret = Su secreto de firma, que solo se muestra esta vez:
subscribe-manage = Guarde este enlace para gestionar o cancelar la suscripción:
back-to-page = Volver a la página de estado

## The support form

support-title = Contactar con soporte
support-lead = Cuéntenos qué ocurre. Este formulario funciona incluso si no puede iniciar sesión en { $name }.
support-known = Incidentes conocidos
support-known-hint = Si este es su problema, no es necesario que nos escriba: la página del incidente recoge todas las actualizaciones. Si su problema es distinto, descríbalo a continuación.
support-trap = Deje este campo vacío
support-name = Su nombre
support-email = Dirección de correo electrónico
support-email-hint = Le responderemos a esta dirección.
support-topic = ¿De qué se trata?
support-topic-choose = Elija un tema
support-topic-sign_in = No puedo iniciar sesión
support-topic-outage = Algo no funciona o va lento
support-topic-billing = Facturación
support-topic-other = Otra cosa
support-component-none = Ninguno, o no estoy seguro
support-component = Parte del servicio afectada (opcional)
support-account = Cuenta, nombre de usuario o número de cliente (opcional)
support-account-hint = Nunca su contraseña.
support-message = ¿Qué ha ocurrido?
support-message-hint = Qué ha intentado, qué ha visto y desde cuándo.
support-copy = Enviarme una copia por correo electrónico
support-send = Enviar a soporte
support-next = Próximos pasos
support-next-text = Recibirá una referencia de inmediato. Una persona del equipo de soporte lee cada mensaje y responde por correo electrónico; cuando muchas personas notifican el mismo problema, publicamos primero las actualizaciones en la página de estado.
support-sent-title = Mensaje recibido
support-reference = Su referencia:
support-keep = Consérvela e indíquela cuando vuelva a escribirnos o nos llame: así encontraremos su mensaje de inmediato.
support-sent-reply = Una persona del equipo de soporte leerá su mensaje y le responderá por correo electrónico a la dirección que ha indicado.
support-sent-status = Cuando muchas personas notifican el mismo problema, publicamos primero las actualizaciones en la página de estado: es la forma más rápida de saber cómo está la situación.
support-already-known = Incidentes ya conocidos
support-another = Enviar otro mensaje

## Reading a page that is not public

access-title = Inicie sesión para ver { $name }
access-not-public = Esta página de estado no es pública.
access-password-or-email = Escriba la contraseña de la página o solicite un enlace de inicio de sesión por correo electrónico.
access-password-only = Escriba la contraseña de la página.
access-email-only = Solicite un enlace de inicio de sesión por correo electrónico.
access-password = Contraseña de la página
access-sign-in = Iniciar sesión
access-email = Correo electrónico del trabajo
access-email-hint = Si su dirección tiene acceso a esta página, le enviaremos un enlace por correo electrónico. Solo se puede usar una vez, durante 15 minutos.
access-email-button = Enviarme un enlace de inicio de sesión
access-no-mail = Los enlaces de inicio de sesión por correo electrónico no están disponibles: esta instancia de Herald no tiene configurado un servidor de correo.
access-ask = El acceso a esta página lo conceden las personas que la gestionan: solicíteles acceso.
access-responders = Responsables de esta página:
access-console = inicie sesión en la consola
access-new-link = Solicitar un nuevo enlace de inicio de sesión
access-link-ready = Su enlace de inicio de sesión está listo. Solo se puede usar una vez.
access-continue = Continuar a { $name }
access-signed-in = Puede leer { $name } en este navegador.
access-sign-out = Cerrar sesión

## What the public forms answer (notices and result pages)

notice-fix-fields = Corrija los campos marcados.
notice-no-mail = Las notificaciones por correo electrónico no están disponibles aquí: esta página de estado no tiene configurado un servidor de correo. En su lugar, puede suscribirse por webhook o seguir el feed Atom de la página.
subscribe-too-many = Demasiadas solicitudes de suscripción; vuelva a intentarlo en { $seconds } segundos.
subscribe-inbox-title = Revise su bandeja de entrada
subscribe-inbox-text = Si esta dirección puede recibir correo, hay un enlace de confirmación en camino. No se enviará nada más hasta que se abra.
subscribe-webhook-title = Webhook suscrito
subscribe-webhook-text = Los avisos se enviarán a su URL, firmados con el secreto que aparece a continuación.
subscribe-confirmed-title = Suscripción confirmada
subscribe-confirmed-text = Recibirá los avisos de estado de { $name }. Cada mensaje incluye un enlace para cancelar la suscripción.
subscribe-confirm-dead = El enlace de confirmación ha caducado o no es válido. Vuelva a suscribirse para recibir uno nuevo.
subscribe-yours-title = Su suscripción
subscribe-yours-text = { $who } recibe los avisos de estado de { $name }.
subscribe-unsubscribe = Cancelar la suscripción
subscribe-cancelled-title = Sin suscripción
subscribe-cancelled-text = Esta suscripción ya está cancelada.
subscribe-unsubscribed-title = Suscripción cancelada
subscribe-unsubscribed-text = Ya no recibirá los avisos de estado de { $name }.
link-dead-title = Este enlace no funciona
link-dead-text = El enlace ya no es válido.
support-not-accepted = No hemos podido aceptar este mensaje. Revíselo y vuelva a enviarlo dentro de unos segundos.
support-fix-fields = Corrija los campos marcados a continuación; se conserva lo que ha escrito.
support-expired = Este formulario ha estado abierto mucho tiempo. Revise su mensaje y vuelva a enviarlo.
support-too-many = Se han enviado demasiados mensajes desde su red. Espere { $seconds } segundos y vuelva a enviarlo; se conserva lo que ha escrito.
support-overloaded = Estamos recibiendo más mensajes de los que podemos guardar mientras nuestros sistemas se recuperan. Vuelva a enviar el suyo dentro de unos minutos; se conserva lo que ha escrito.
support-not-saved = No se ha podido guardar su mensaje en este momento. Vuelva a enviarlo dentro de un minuto.
access-form-expired = Este formulario ha caducado o no procede de esta página. Vuelva a intentarlo.
access-no-password = Esta página no tiene contraseña.
access-type-password = Escriba la contraseña de la página.
access-wrong-password = Esa no es la contraseña de esta página.
access-link-sent = Si { $email } tiene acceso a esta página, se ha enviado un enlace de inicio de sesión a esa dirección. Solo se puede usar una vez, durante { $minutes } minutos.
access-no-links = Esta página no envía enlaces de inicio de sesión.
access-link-expired = Este enlace de inicio de sesión ha caducado: los enlaces son válidos durante 15 minutos. Solicite uno nuevo.
access-link-invalid = Este no es un enlace de inicio de sesión de esta página. Solicite uno nuevo.
access-link-used = Este enlace de inicio de sesión ya se ha usado o ha caducado. Solicite uno nuevo.

## What a field of a public form is told when it is refused

form-error-email = Escriba una dirección de correo electrónico como name@example.com.
support-error-name-empty = Escriba su nombre.
support-error-too-long = Use como máximo { $max } caracteres.
support-error-name-line = Escriba su nombre en una sola línea, sin caracteres especiales.
support-error-topic-empty = Elija de qué trata su mensaje.
support-error-topic-unknown = Elija uno de los temas de la lista.
support-error-component = Elija uno de los componentes de la lista, o ninguno.
support-error-account-line = Escriba la cuenta en una sola línea, sin caracteres especiales.
support-error-message-empty = Cuéntenos qué ha ocurrido.
support-error-message-short = Cuéntenos un poco más (al menos { $min } caracteres).
support-error-message-long = Use como máximo { $max } caracteres (el texto tiene { $length }).
support-error-control = Elimine los caracteres especiales (de control).
subscribe-error-url = Escriba la dirección https:// de un servidor accesible desde internet.
subscribe-error-contact = Escriba una dirección de correo electrónico como name@example.com, o deje el campo vacío.
subscribe-error-components = Elija entre los componentes de la lista.
subscribe-error-language = Elija uno de los idiomas de la lista.
subscribe-error-type = Elija correo electrónico o webhook.
