# Herald's own words on public status pages, their forms and their mails.
# Placeables: { $name } is a value; a { $time } is drawn as a <time> element, a { $link } as a
# link, so only their place in the sentence is the translator's.

## すべてのページの枠組み

skip-to-content = メインコンテンツへスキップ
page-status-title = { $name } のステータス
page-title-with = { $title } · { $name } のステータス
nav-status = ステータス
nav-history = 履歴
nav-subscribe = 購読
nav-support = サポート
language-switcher = 言語
feed-atom-title = { $name }：インシデント履歴 (Atom)
feed-rss-title = { $name }：インシデント履歴 (RSS)
feed-ics-title = { $name }：メンテナンスカレンダー (iCalendar)
stale-notice = 現在、最新のデータを一時的に取得できません。{ $time } 時点のデータを表示しています。
data-as-of = { $time } 時点のデータです。時刻は { $zone } で表示されます（JavaScript が有効な場合は、お使いのタイムゾーンで表示されます）。
footer-atom = Atom フィード
footer-rss = RSS フィード
footer-ics = メンテナンスカレンダー
powered-by = Powered by Herald
original-language = 翻訳がないため、原文のまま表示しています。
page-time = ページのタイムゾーン

## ステータス

component-status-operational = 稼働中
component-status-degraded_performance = パフォーマンス低下
component-status-partial_outage = 部分的な障害
component-status-major_outage = 重大な障害
component-status-under_maintenance = メンテナンス中
indicator-none = すべてのシステムが稼働中
indicator-minor = 軽微なサービス障害
indicator-major = システムの部分的な障害
indicator-critical = システムの重大な障害
indicator-maintenance = サービスメンテナンス中
impact-none = 影響なし
impact-minor = 軽度の影響
impact-major = 大きな影響
impact-critical = 重大な影響
incident-status-investigating = 調査中
incident-status-identified = 原因特定済み
incident-status-monitoring = 経過観察中
incident-status-resolved = 解決済み
incident-status-postmortem = 事後分析
maintenance-status-scheduled = 予定
maintenance-status-in_progress = 実施中
maintenance-status-verifying = 確認中
maintenance-status-completed = 完了
kind-incident = インシデント
kind-advisory = お知らせ
kind-maintenance = メンテナンス
follow-up-open = 未着手
follow-up-in_progress = 対応中
follow-up-done = 完了
no-data = データなし

## 所要時間（概算）：45 秒、12 分、1 時間 5 分、2 日 3 時間

duration-seconds = { $s } 秒
duration-minutes = { $m } 分
duration-hours = { $h } 時間
duration-hours-minutes = { $h } 時間 { $m } 分
duration-days = { $d } 日
duration-days-hours = { $d } 日 { $h } 時間

## 概要ページ

overall-status = 全体のステータス
signin-affected = ログインに影響が出ています。
signin-help-link = ログインできない場合は、サポートにお問い合わせください
signin-help-after = お問い合わせフォームはアカウントなしでご利用いただけます。
active-incidents = 発生中のインシデント
maintenance-in-progress = 実施中のメンテナンス
scheduled-maintenance = 予定されているメンテナンス
vendors-heading = 外部ベンダーからの報告
vendor-maintenance = （メンテナンス）
vendor-status-since = { $status }（{ $time } 以降）。
vendor-status = { $status }。
vendor-affects = 当社の { $components } に影響があります。これは当社ではなく { $vendor } による報告です。
components-heading = コンポーネント
group-count = （コンポーネント { $count } 個）
no-components = このページにはまだコンポーネントが登録されていません。
stay-informed = 最新情報を受け取る
link-history = インシデント履歴
link-subscribe = 更新情報を購読
link-support = サポートへのお問い合わせ
link-atom = Atom フィード
link-rss = RSS フィード
link-ics = メンテナンスカレンダー (iCalendar)

## コンポーネント

component-vendor = { $vendor } のステータスページによる情報（{ $component }）
vendor-last-known = 最後に確認されたステータス
vendor-failing = { $time } 時点：{ $since } 以降、{ $vendor } のページを読み込めていません。
vendor-failing-unknown = 確認時刻不明：{ $since } 以降、{ $vendor } のページを読み込めていません。
uptime-bar = 過去 { $days } 日間の { $name } の稼働率
uptime-percent = 稼働率 { $percent }
days-ago = { $days } 日前
today = 今日
day-uptime = { $date }：稼働率 { $percent }
day-uptime-worst = { $date }：稼働率 { $percent }、{ $worst }
day-today-worst = { $date }（本日これまで）：{ $worst }
day-no-data = { $date }：データなし
day-range = { $from }～{ $to }
day-incidents = 、インシデント { $count } 件

## インシデントとメンテナンス

scheduled-from = 予定：{ $from }
scheduled-window = 予定：{ $from } ～ { $until }
started-at = 開始：{ $time }
resolved-at = 解決：{ $time }
window-to = { $from } ～ { $until }
affected = 影響範囲：
next-update-by = 次回の更新予定：{ $time }
update-overdue = 更新が予定より遅れています。
update-expected-by = 次回の更新は { $time } までに行われる予定でした
countdown-in = （あと { $duration }）
countdown-ago = （{ $duration } 前）
next-update-promised = 次回の更新は { $time } までに行われる予定でした。
update-on-time = 次回の更新は予定どおりに行われました。
update-late = 次回の更新は予定より { $duration } 遅れて行われました。
breadcrumb = パンくずリスト
fact-scheduled = 予定
fact-started = 開始
fact-resolved = 解決
affected-components = 影響を受けるコンポーネント
details = 詳細
field-user-impact = ユーザーへの影響
field-scope = 影響範囲
field-preliminary-root-cause = 暫定的な根本原因
field-root-cause-as-reported = 当初報告された根本原因
updates = 更新情報
no-updates = まだ更新情報は投稿されていません。
postmortem = 事後分析
published-at = { $time } 公開
pm-scope = 影響の規模
pm-summary = 概要
pm-root-cause = 根本原因
pm-timeline = タイムライン
pm-timeline-caption = 経緯（時刻は UTC）
pm-time-utc = 時刻 (UTC)
pm-event = 出来事
pm-follow-ups = 今後の対応

## 履歴

history-title = インシデント履歴
history-page-title = { $page ->
    [1] 履歴
   *[other] 履歴（{ $page } ページ目）
}
history-lead = { $name } のインシデントとメンテナンスを新しい順に表示しています。日付は UTC 基準です。
history-lead-paged = { $name } のインシデントとメンテナンスを新しい順に表示しています（{ $page } / { $pages } ページ）。日付は UTC 基準です。
history-month-empty = この月に報告されたインシデントやメンテナンスはありません。
history-pages = 履歴のページ
history-newer = ← 新しい記録
history-older = 以前の記録 →

## 埋め込み表示

embed-updated = { $status }（{ $time } 更新）
embed-full-page = ステータスページを開く

## エラー

not-found-title = ページが見つかりません
not-found-lead = このアドレスに該当するステータスページまたはドキュメントはありません。
see-all-pages = ステータスページの一覧を見る
unavailable-title = ステータスページはまだご利用いただけません
unavailable-lead = このステータスページは現在準備中です。数秒後にもう一度お試しください。
retry-after = { $seconds } 秒後にもう一度お試しください。
quote-reference = お問い合わせの際は、次の参照番号をお伝えください：

## 購読

subscribe-title = 更新情報の購読
subscribe-lead = { $name } のインシデントとメンテナンスのお知らせを、メールまたは Webhook で受け取れます。アカウントは不要です。すべてのメッセージに購読解除用のリンクが記載されています。
subscribe-how = 受信方法
subscribe-by-email = メール
subscribe-email = メールアドレス
subscribe-email-hint = 最初に確認用のリンクをお送りします。そのリンクを開くまで、ほかのメッセージは送信されません。
subscribe-by-webhook = Webhook
subscribe-url = Webhook URL
subscribe-url-hint = Standard Webhooks 仕様に従って署名されます。Slack、Discord、Microsoft Teams の Incoming Webhook URL には、各サービスの形式でメッセージが送信されます。
subscribe-contact = 配信に問題が発生した場合の連絡先メールアドレス（任意）
subscribe-language = メッセージの言語
subscribe-components = 対象のコンポーネント
subscribe-components-hint = ページ全体を購読する場合は、すべてのチェックボックスを空のままにしてください。重大な影響のあるインシデントは、すべての購読者に通知されます。
subscribe-changes = ステータスの変更
subscribe-changes-hint = インシデントとメンテナンスのお知らせは常に送信されます。このオプションを選択すると、インシデントの有無にかかわらず、選択したコンポーネントのステータスが変わるたびに通知が届きます。
subscribe-changes-check = コンポーネントのステータスが変わったときにも通知する
subscribe-button = 購読する
subscribe-secret = 署名用シークレット（表示されるのは今回のみです）：
subscribe-manage = 購読の管理や解除に使用するため、このリンクを保管してください：
back-to-page = ステータスページに戻る

## サポートフォーム

support-title = サポートへのお問い合わせ
support-lead = 問題の内容をお知らせください。このフォームは、{ $name } にログインできない場合でもご利用いただけます。
support-known = 把握している問題
support-known-hint = お困りの問題が上記に該当する場合は、お問い合わせいただく必要はありません。最新の情報はインシデントページでご確認いただけます。別の問題の場合は、以下のフォームからお知らせください。
support-trap = この欄は空欄のままにしてください
support-name = お名前
support-email = メールアドレス
support-email-hint = このアドレス宛てに返信します。
support-topic = お問い合わせの種類
support-topic-choose = 種類を選択してください
support-topic-sign_in = ログインできない
support-topic-outage = 停止している、または遅い
support-topic-billing = 請求
support-topic-other = その他
support-component-none = なし、またはわからない
support-component = 問題が発生しているサービスの箇所（任意）
support-account = アカウント、ユーザー名、またはお客様番号（任意）
support-account-hint = パスワードは絶対に入力しないでください。
support-message = 発生している問題
support-message-hint = お試しいただいたこと、表示された内容、いつから発生しているかをご記入ください。
support-copy = 送信内容の控えをメールで受け取る
support-send = サポートに送信
support-next = 今後の流れ
support-next-text = 送信後すぐに参照番号が発行されます。すべてのメッセージはサポートチームの担当者が確認し、メールで返信いたします。多くの方から同じ問題が報告されている場合は、まずステータスページで最新情報をお知らせします。
support-sent-title = メッセージを受け付けました
support-reference = 参照番号：
support-keep = この番号は保管しておいてください。再度ご連絡いただく際やお電話の際にお伝えいただくと、すぐにメッセージを確認できます。
support-sent-reply = サポートチームの担当者がメッセージを確認し、ご入力いただいたメールアドレス宛てに返信いたします。
support-sent-status = 多くの方から同じ問題が報告されている場合は、まずステータスページで最新情報をお知らせします。状況を把握するには、ステータスページをご確認いただくのが最も早い方法です。
support-already-known = すでに把握している問題
support-another = 別のメッセージを送信

## 非公開ページの閲覧

access-title = { $name } の閲覧にはログインが必要です
access-not-public = このステータスページは公開されていません。
access-password-or-email = パスワードを入力するか、ログイン用リンクをメールで受け取ってください。
access-password-only = パスワードを入力してください。
access-email-only = ログイン用リンクをメールで受け取ってください。
access-password = ページのパスワード
access-sign-in = ログイン
access-email = 勤務先のメールアドレス
access-email-hint = このページの閲覧が許可されているアドレスの場合は、リンクをメールでお送りします。リンクは 1 回のみ、15 分間有効です。
access-email-button = ログイン用リンクをメールで受け取る
access-no-mail = メールによるログイン用リンクはご利用いただけません。この Herald にはメールサーバーが設定されていません。
access-ask = このページの閲覧権限は、ページの運営者が付与します。アクセスをご希望の場合は、運営者にお問い合わせください。
access-responders = このページの対応担当者の方：
access-console = コンソールにログイン
access-new-link = 新しいログイン用リンクをリクエスト
access-link-ready = ログイン用リンクの準備ができました。このリンクは 1 回のみ有効です。
access-continue = { $name } に進む
access-signed-in = このブラウザーで { $name } を閲覧できます。
access-sign-out = ログアウト

## What the public forms answer (notices and result pages)

notice-fix-fields = 印の付いた項目を修正してください。
notice-no-mail = このステータスページにはメールサーバーが設定されていないため、メールによる通知はご利用いただけません。代わりに Webhook で購読するか、ページの Atom フィードをご利用ください。
subscribe-too-many = 購読のリクエストが多すぎます。{ $seconds } 秒後にもう一度お試しください。
subscribe-inbox-title = 受信トレイをご確認ください
subscribe-inbox-text = このアドレスでメールを受信できる場合は、確認用のリンクが送信されています。そのリンクが開かれるまで、ほかのメッセージは送信されません。
subscribe-webhook-title = Webhook の購読を登録しました
subscribe-webhook-text = 通知はご指定の URL に送信され、以下のシークレットで署名されます。
subscribe-confirmed-title = 購読が確認されました
subscribe-confirmed-text = { $name } のステータス通知をお送りします。すべてのメッセージに購読解除用のリンクが記載されています。
subscribe-confirm-dead = 確認用のリンクの有効期限が切れているか、リンクが無効です。新しいリンクを受け取るには、もう一度購読してください。
subscribe-yours-title = ご登録中の購読
subscribe-yours-text = { $name } のステータス通知は { $who } 宛てに送信されています。
subscribe-unsubscribe = 購読を解除
subscribe-cancelled-title = 購読されていません
subscribe-cancelled-text = この購読はすでに解除されています。
subscribe-unsubscribed-title = 購読を解除しました
subscribe-unsubscribed-text = 今後、{ $name } のステータス通知は送信されません。
link-dead-title = このリンクは使用できません
link-dead-text = このリンクはすでに無効です。
support-not-accepted = このメッセージを受け付けられませんでした。内容をご確認のうえ、数秒後にもう一度送信してください。
support-fix-fields = 以下の印の付いた項目を修正してください。入力した内容は保持されています。
support-expired = このフォームは長時間開かれたままでした。メッセージの内容をご確認のうえ、もう一度送信してください。
support-too-many = お使いのネットワークから送信されたメッセージが多すぎます。{ $seconds } 秒待ってから、もう一度送信してください。入力した内容は保持されています。
support-overloaded = システムの復旧中のため、保存できる件数を超えるメッセージを受信しています。数分後にもう一度送信してください。入力した内容は保持されています。
support-not-saved = ただいまメッセージを保存できませんでした。1 分後にもう一度送信してください。
access-form-expired = このフォームは有効期限が切れているか、このページから送信されたものではありません。もう一度お試しください。
access-no-password = このページにはパスワードが設定されていません。
access-type-password = ページのパスワードを入力してください。
access-wrong-password = このページのパスワードと一致しません。
access-link-sent = { $email } がこのページの閲覧を許可されているアドレスの場合は、ログイン用リンクをお送りしました。リンクは 1 回のみ、{ $minutes } 分間有効です。
access-no-links = このページではログイン用リンクを送信していません。
access-link-expired = このログイン用リンクは有効期限が切れています（リンクの有効期間は 15 分間です）。新しいリンクをリクエストしてください。
access-link-invalid = このページのログイン用リンクではありません。新しいリンクをリクエストしてください。
access-link-used = このログイン用リンクはすでに使用されているか、有効期限が切れています。新しいリンクをリクエストしてください。

## 公開フォームの項目が受け付けられなかったときの案内

form-error-email = name@example.com のような形式でメールアドレスを入力してください。
support-error-name-empty = お名前を入力してください。
support-error-too-long = { $max } 文字以内で入力してください。
support-error-name-line = お名前は特殊文字を使わずに 1 行で入力してください。
support-error-topic-empty = お問い合わせの種類を選択してください。
support-error-topic-unknown = 一覧にあるお問い合わせの種類から選択してください。
support-error-component = 一覧にあるコンポーネントから選択するか、「なし」を選択してください。
support-error-account-line = アカウントは特殊文字を使わずに 1 行で入力してください。
support-error-message-empty = 何が起きたかをお知らせください。
support-error-message-short = もう少し詳しくお知らせください（{ $min } 文字以上）。
support-error-message-long = { $max } 文字以内で入力してください（現在 { $length } 文字）。
support-error-control = 特殊文字（制御文字）を削除してください。
subscribe-error-url = インターネットからアクセスできるサーバーの https:// アドレスを入力してください。
subscribe-error-contact = name@example.com のような形式でメールアドレスを入力するか、空欄のままにしてください。
subscribe-error-components = 一覧にあるコンポーネントから選択してください。
subscribe-error-language = 一覧にある言語から選択してください。
subscribe-error-type = メールまたは Webhook を選択してください。
