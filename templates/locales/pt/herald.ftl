# Herald's own words on public status pages, their forms and their mails.
# Placeables: { $name } is a value; a { $time } is drawn as a <time> element, a { $link } as a
# link, so only their place in the sentence is the translator's.

## A estrutura de todas as páginas

skip-to-content = Ir para o conteúdo principal
page-status-title = Status de { $name }
page-title-with = { $title } · Status de { $name }
nav-status = Status
nav-history = Histórico
nav-subscribe = Inscrever-se
nav-support = Suporte
language-switcher = Idioma
feed-atom-title = { $name }: histórico de incidentes (Atom)
feed-rss-title = { $name }: histórico de incidentes (RSS)
feed-ics-title = { $name }: calendário de manutenções (iCalendar)
stale-notice = Os dados em tempo real estão temporariamente indisponíveis; exibindo os dados de { $time }.
data-as-of = Dados de { $time }. Os horários são exibidos em { $zone } ou no seu fuso horário, se o JavaScript estiver ativado.
footer-atom = Feed Atom
footer-rss = Feed RSS
footer-ics = Calendário de manutenções
powered-by = Com tecnologia Herald
original-language = Sem tradução: exibido no idioma original.
page-time = fuso horário da página

## Status

component-status-operational = Operacional
component-status-degraded_performance = Desempenho degradado
component-status-partial_outage = Interrupção parcial
component-status-major_outage = Interrupção grave
component-status-under_maintenance = Em manutenção
indicator-none = Todos os sistemas operacionais
indicator-minor = Pequena interrupção do serviço
indicator-major = Interrupção parcial do sistema
indicator-critical = Interrupção grave do sistema
indicator-maintenance = Serviço em manutenção
impact-none = Sem impacto
impact-minor = Impacto baixo
impact-major = Impacto alto
impact-critical = Impacto crítico
incident-status-investigating = Em investigação
incident-status-identified = Identificado
incident-status-monitoring = Em monitoramento
incident-status-resolved = Resolvido
incident-status-postmortem = Análise pós-incidente
maintenance-status-scheduled = Agendada
maintenance-status-in_progress = Em andamento
maintenance-status-verifying = Em verificação
maintenance-status-completed = Concluída
kind-incident = Incidente
kind-advisory = Aviso
kind-maintenance = Manutenção
follow-up-open = Aberta
follow-up-in_progress = Em andamento
follow-up-done = Concluída
no-data = Sem dados

## Durações, aproximadas: 45 s, 12 min, 1 h 5 min, 2 d 3 h

duration-seconds = { $s } s
duration-minutes = { $m } min
duration-hours = { $h } h
duration-hours-minutes = { $h } h { $m } min
duration-days = { $d } d
duration-days-hours = { $d } d { $h } h

## A visão geral

overall-status = Status geral
signin-affected = Há problemas para entrar na conta.
signin-help-link = Não consegue entrar? Fale com o suporte
signin-help-after = O formulário pode ser usado sem uma conta.
active-incidents = Incidentes ativos
maintenance-in-progress = Manutenção em andamento
scheduled-maintenance = Manutenções agendadas
vendors-heading = Informado pelos nossos fornecedores
vendor-maintenance = (manutenção)
vendor-status-since = { $status } desde { $time }.
vendor-status = { $status }.
vendor-affects = Nossos componentes afetados: { $components }. Este relato é de { $vendor }, não nosso.
components-heading = Componentes
group-count = { $count ->
    [one] ({ $count } componente)
   *[other] ({ $count } componentes)
}
no-components = Ainda não há componentes listados nesta página.
stay-informed = Acompanhe as atualizações
link-history = Histórico de incidentes
link-subscribe = Receber atualizações
link-support = Fale com o suporte
link-atom = Feed Atom
link-rss = Feed RSS
link-ics = Calendário de manutenções (iCalendar)

## Um componente

component-vendor = Status da página de { $vendor } ({ $component })
vendor-last-known = Último status conhecido
vendor-failing = em { $time }: não conseguimos ler a página de { $vendor } desde { $since }.
vendor-failing-unknown = em horário desconhecido: não conseguimos ler a página de { $vendor } desde { $since }.
uptime-bar = Disponibilidade de { $name } nos últimos { $days } dias
uptime-percent = { $percent } de disponibilidade
days-ago = há { $days } dias
today = Hoje
day-uptime = { $date }: { $percent } de disponibilidade
day-uptime-worst = { $date }: { $percent } de disponibilidade, { $worst }
day-today-worst = { $date } (hoje, até agora): { $worst }
day-no-data = { $date }: sem dados
day-range = de { $from } a { $to }
day-incidents = { $count ->
    [one] , 1 incidente
   *[other] , { $count } incidentes
}

## Incidentes e manutenções

scheduled-from = Agendada para { $from }
scheduled-window = Agendada de { $from } a { $until }
started-at = Iniciado em { $time }
resolved-at = Resolvido em { $time }
window-to = { $from } a { $until }
affected = Afetados:
next-update-by = Próxima atualização até { $time }
update-overdue = A atualização está atrasada.
update-expected-by = A próxima atualização era esperada até { $time }
countdown-in = (em { $duration })
countdown-ago = (há { $duration })
next-update-promised = A próxima atualização foi prometida até { $time }.
update-on-time = A próxima atualização foi publicada no prazo.
update-late = A próxima atualização foi publicada com { $duration } de atraso.
breadcrumb = Trilha de navegação
fact-scheduled = Agendamento
fact-started = Início
fact-resolved = Resolução
affected-components = Componentes afetados
details = Detalhes
field-user-impact = Impacto para os usuários
field-scope = Abrangência do impacto
field-preliminary-root-cause = Causa raiz preliminar
field-root-cause-as-reported = Causa raiz informada inicialmente
updates = Atualizações
no-updates = Nenhuma atualização foi publicada ainda.
postmortem = Análise pós-incidente
published-at = Publicada em { $time }
pm-scope = Abrangência
pm-summary = Resumo
pm-root-cause = Causa raiz
pm-timeline = Cronologia
pm-timeline-caption = O que aconteceu e quando (horários em UTC)
pm-time-utc = Horário (UTC)
pm-event = Evento
pm-follow-ups = Ações de acompanhamento

## Histórico

history-title = Histórico de incidentes
history-page-title = { $page ->
    [1] Histórico
   *[other] Histórico, página { $page }
}
history-lead = Incidentes e manutenções de { $name }, dos mais recentes aos mais antigos. Os dias são contados em UTC.
history-lead-paged = Incidentes e manutenções de { $name }, dos mais recentes aos mais antigos (página { $page } de { $pages }). Os dias são contados em UTC.
history-month-empty = Nenhum incidente ou manutenção informado neste mês.
history-pages = Páginas do histórico
history-newer = ← Mais recentes
history-older = Mais antigos →

## O widget incorporado

embed-updated = { $status }, última atualização em { $time }
embed-full-page = Página de status completa

## Erros

not-found-title = Página não encontrada
not-found-lead = Não há nenhuma página de status ou documento neste endereço.
see-all-pages = Ver a lista de páginas de status
unavailable-title = Página de status ainda não disponível
unavailable-lead = Esta página de status está sendo preparada. Tente novamente em alguns segundos.
retry-after = Tente novamente em { $seconds } segundos.
quote-reference = Se precisar de ajuda, informe esta referência:

## Inscrição

subscribe-title = Inscrever-se para receber atualizações
subscribe-lead = Receba os avisos de incidentes e manutenções de { $name } por e-mail ou webhook. Não é preciso ter uma conta; todas as mensagens trazem um link para cancelar a inscrição.
subscribe-how = Como
subscribe-by-email = Por e-mail
subscribe-email = Endereço de e-mail
subscribe-email-hint = Primeiro enviamos um link de confirmação; nada mais é enviado até que você o abra.
subscribe-by-webhook = Por webhook
subscribe-url = URL do webhook
subscribe-url-hint = As mensagens são assinadas conforme a especificação Standard Webhooks. URLs de incoming webhook do Slack, do Discord e do Microsoft Teams recebem as mensagens no formato próprio de cada serviço.
subscribe-contact = E-mail de contato para problemas de entrega (opcional)
subscribe-language = Idioma das mensagens
subscribe-components = Quais componentes
subscribe-components-hint = Deixe todas as caixas desmarcadas para acompanhar a página inteira. Incidentes de impacto crítico são enviados a todos os inscritos.
subscribe-changes = Mudanças de status
subscribe-changes-hint = Incidentes e manutenções são sempre enviados. Esta opção adiciona um aviso sempre que um dos seus componentes mudar de status, com ou sem incidente.
subscribe-changes-check = Avisar também quando o status de um componente mudar
subscribe-button = Inscrever-se
subscribe-secret = Sua chave secreta de assinatura, exibida somente desta vez:
subscribe-manage = Guarde este link para gerenciar ou cancelar a inscrição:
back-to-page = Voltar para a página de status

## O formulário de suporte

support-title = Fale com o suporte
support-lead = Conte-nos qual é o problema. Este formulário funciona mesmo quando você não consegue entrar em { $name }.
support-known = Problemas conhecidos
support-known-hint = Se o seu problema for este, não é preciso escrever: a página do incidente traz todas as atualizações. Se o seu problema for outro, conte-nos abaixo.
support-trap = Deixe este campo em branco
support-name = Seu nome
support-email = Endereço de e-mail
support-email-hint = Responderemos para este endereço.
support-topic = Qual é o assunto?
support-topic-choose = Escolha um assunto
support-topic-sign_in = Não consigo entrar
support-topic-outage = Algo está fora do ar ou lento
support-topic-billing = Faturamento
support-topic-other = Outro assunto
support-component-none = Nenhum, ou não tenho certeza
support-component = Parte do serviço afetada (opcional)
support-account = Conta, nome de usuário ou número de cliente (opcional)
support-account-hint = Nunca informe sua senha.
support-message = O que aconteceu?
support-message-hint = O que você tentou, o que viu e desde quando.
support-copy = Enviar uma cópia para o meu e-mail
support-send = Enviar para o suporte
support-next = Próximos passos
support-next-text = Você recebe um número de referência na hora. Uma pessoa da equipe de suporte lê todas as mensagens e responde por e-mail; quando muitas pessoas relatam o mesmo problema, publicamos primeiro as atualizações na página de status.
support-sent-title = Mensagem recebida
support-reference = Seu número de referência:
support-keep = Guarde-o: informe-o quando escrever novamente ou nos ligar, e encontraremos sua mensagem na hora.
support-sent-reply = Uma pessoa da equipe de suporte lerá sua mensagem e responderá por e-mail para o endereço que você informou.
support-sent-status = Quando muitas pessoas relatam o mesmo problema, publicamos primeiro as atualizações na página de status: é a forma mais rápida de acompanhar a situação.
support-already-known = Problemas que já conhecemos
support-another = Enviar outra mensagem

## Acesso a uma página que não é pública

access-title = Entre para ver { $name }
access-not-public = Esta página de status não é pública.
access-password-or-email = Digite a senha da página ou receba um link de acesso por e-mail.
access-password-only = Digite a senha da página.
access-email-only = Receba um link de acesso por e-mail.
access-password = Senha da página
access-sign-in = Entrar
access-email = E-mail corporativo
access-email-hint = Se o seu endereço tiver permissão para ver esta página, enviaremos um link por e-mail. O link pode ser usado uma única vez e vale por 15 minutos.
access-email-button = Enviar link de acesso por e-mail
access-no-mail = Os links de acesso por e-mail não estão disponíveis: este Herald não tem um servidor de e-mail configurado.
access-ask = O acesso a esta página é concedido pelas pessoas que a administram: peça acesso a elas.
access-responders = Equipe de resposta desta página:
access-console = entre no console
access-new-link = Solicitar um novo link de acesso
access-link-ready = Seu link de acesso está pronto. Ele pode ser usado uma única vez.
access-continue = Continuar para { $name }
access-signed-in = Você pode ler { $name } neste navegador.
access-sign-out = Sair

## What the public forms answer (notices and result pages)

notice-fix-fields = Corrija os campos destacados.
notice-no-mail = As notificações por e-mail não estão disponíveis aqui: esta página de status não tem um servidor de e-mail configurado. Em vez disso, você pode se inscrever por webhook ou acompanhar o feed Atom da página.
subscribe-too-many = Muitas solicitações de inscrição; tente novamente em { $seconds } segundos.
subscribe-inbox-title = Confira sua caixa de entrada
subscribe-inbox-text = Se este endereço puder receber e-mails, um link de confirmação está a caminho. Nada mais é enviado até que ele seja aberto.
subscribe-webhook-title = Webhook inscrito
subscribe-webhook-text = Os avisos serão enviados para a sua URL, assinados com a chave secreta abaixo.
subscribe-confirmed-title = Inscrição confirmada
subscribe-confirmed-text = Você receberá os avisos de status de { $name }. Todas as mensagens trazem um link para cancelar a inscrição.
subscribe-confirm-dead = O link de confirmação expirou ou não é válido. Inscreva-se novamente para receber um novo.
subscribe-yours-title = Sua inscrição
subscribe-yours-text = { $who } recebe os avisos de status de { $name }.
subscribe-unsubscribe = Cancelar inscrição
subscribe-cancelled-title = Sem inscrição
subscribe-cancelled-text = Esta inscrição já foi cancelada.
subscribe-unsubscribed-title = Inscrição cancelada
subscribe-unsubscribed-text = Você não receberá mais os avisos de status de { $name }.
link-dead-title = Este link não funciona
link-dead-text = O link não é mais válido.
support-not-accepted = Não foi possível aceitar esta mensagem. Verifique-a e envie novamente em alguns segundos.
support-fix-fields = Corrija os campos destacados abaixo; o que você digitou foi mantido.
support-expired = Este formulário ficou aberto por muito tempo. Verifique sua mensagem e envie novamente.
support-too-many = Muitas mensagens foram enviadas a partir da sua rede. Aguarde { $seconds } segundos e envie novamente; o que você digitou foi mantido.
support-overloaded = Estamos recebendo mais mensagens do que conseguimos guardar enquanto nossos sistemas se recuperam. Envie a sua novamente em alguns minutos; o que você digitou foi mantido.
support-not-saved = Não foi possível salvar sua mensagem agora. Envie novamente daqui a um minuto.
access-form-expired = Este formulário expirou ou não veio desta página. Tente novamente.
access-no-password = Esta página não tem senha.
access-type-password = Digite a senha da página.
access-wrong-password = Esta não é a senha desta página.
access-link-sent = Se { $email } tiver permissão para ver esta página, um link de acesso está a caminho desse endereço. O link pode ser usado uma única vez e vale por { $minutes } minutos.
access-no-links = Esta página não envia links de acesso.
access-link-expired = Este link de acesso expirou: os links valem por 15 minutos. Solicite um novo.
access-link-invalid = Este não é um link de acesso desta página. Solicite um novo.
access-link-used = Este link de acesso já foi usado ou expirou. Solicite um novo.

## O que um campo de um formulário público informa quando é recusado

form-error-email = Digite um endereço de e-mail como name@example.com.
support-error-name-empty = Digite seu nome.
support-error-too-long = Use no máximo { $max } caracteres.
support-error-name-line = Escreva seu nome em uma única linha, sem caracteres especiais.
support-error-topic-empty = Escolha o assunto da sua mensagem.
support-error-topic-unknown = Escolha um dos assuntos da lista.
support-error-component = Escolha um dos componentes da lista, ou nenhum.
support-error-account-line = Escreva a conta em uma única linha, sem caracteres especiais.
support-error-message-empty = Conte-nos o que aconteceu.
support-error-message-short = Conte-nos um pouco mais (pelo menos { $min } caracteres).
support-error-message-long = Use no máximo { $max } caracteres (o texto tem { $length }).
support-error-control = Remova os caracteres especiais (de controle).
subscribe-error-url = Digite o endereço https:// de um servidor acessível pela internet.
subscribe-error-contact = Digite um endereço de e-mail como name@example.com, ou deixe o campo em branco.
subscribe-error-components = Escolha entre os componentes da lista.
subscribe-error-language = Escolha um dos idiomas da lista.
subscribe-error-type = Escolha e-mail ou webhook.
