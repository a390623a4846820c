"""English and Japanese for the pages: board names, UI strings, event phrases and rule messages by rule ID.

The engine speaks English (`engine.describe`, `IllegalCommand.detail`); this module is where the web layer
adds Japanese. Board names are the Japanese edition's (the JMA plays on the Standard/Atlantic City board,
whose names the Japanese edition writes in katakana, e.g. ボードウォーク). A rule message is shown as
"rule ID: translated title — engine detail", so the rule ID is always visible whatever the language.

The language comes from the page address's `?lang=` (en or ja), else a `lang` cookie (the switch), else the
browser's Accept-Language.
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

from engine.board import DEEDS, GROUPS, SQUARES
from engine.describe import MONEY_REASONS

LANGS: Final = ("en", "ja")
DEFAULT_LANG: Final = "en"
COOKIE: Final = "lang"

# ---- board ----

SQUARE_NAMES_JA: Final[dict[int, str]] = {
    0: "GO",
    1: "メディタレニアン・アベニュー",
    2: "共同基金",
    3: "バルティック・アベニュー",
    4: "所得税",
    5: "リーディング鉄道",
    6: "オリエンタル・アベニュー",
    7: "チャンス",
    8: "バーモント・アベニュー",
    9: "コネチカット・アベニュー",
    10: "刑務所／見学",
    11: "セント・チャールズ・プレース",
    12: "電力会社",
    13: "ステーツ・アベニュー",
    14: "バージニア・アベニュー",
    15: "ペンシルバニア鉄道",
    16: "セント・ジェームス・プレース",
    17: "共同基金",
    18: "テネシー・アベニュー",
    19: "ニューヨーク・アベニュー",
    20: "無料駐車場",
    21: "ケンタッキー・アベニュー",
    22: "チャンス",
    23: "インディアナ・アベニュー",
    24: "イリノイ・アベニュー",
    25: "B&O鉄道",
    26: "アトランティック・アベニュー",
    27: "ベントノー・アベニュー",
    28: "水道会社",
    29: "マービン・ガーデン",
    30: "刑務所へ行く",
    31: "パシフィック・アベニュー",
    32: "ノース・カロライナ・アベニュー",
    33: "共同基金",
    34: "ペンシルバニア・アベニュー",
    35: "ショート・ライン",
    36: "チャンス",
    37: "パーク・プレイス",
    38: "物品税",
    39: "ボードウォーク",
}

GROUP_NAMES: Final[dict[str, dict[str, str]]] = {
    "brown": {"en": "Brown", "ja": "茶"},
    "light_blue": {"en": "Light blue", "ja": "水色"},
    "pink": {"en": "Pink", "ja": "ピンク"},
    "orange": {"en": "Orange", "ja": "オレンジ"},
    "red": {"en": "Red", "ja": "赤"},
    "yellow": {"en": "Yellow", "ja": "黄"},
    "green": {"en": "Green", "ja": "緑"},
    "dark_blue": {"en": "Dark blue", "ja": "紺"},
    "railroad": {"en": "Railroads", "ja": "鉄道"},
    "utility": {"en": "Utilities", "ja": "公共会社"},
}

# Colours of the printed board, for the SVG.
GROUP_COLOURS: Final[dict[str, str]] = {
    "brown": "#8b4a2b",
    "light_blue": "#aae0fa",
    "pink": "#d93a96",
    "orange": "#f7941d",
    "red": "#ed1b24",
    "yellow": "#fef200",
    "green": "#1fb25a",
    "dark_blue": "#0072bb",
}

DECK_NAMES: Final[dict[str, dict[str, str]]] = {
    "chance": {"en": "Chance", "ja": "チャンス"},
    "community_chest": {"en": "Community Chest", "ja": "共同基金"},
}

# Short Japanese card titles by card id (both US decks); English uses the card's printed text.
CARD_TITLES_JA: Final[dict[str, str]] = {
    "advance_go": "GOまで進む（$200受け取る）",
    "advance_illinois": "イリノイ・アベニューまで進む",
    "advance_st_charles": "セント・チャールズ・プレースまで進む",
    "nearest_utility": "最寄りの公共会社へ進む（所有者には出目×10を支払う）",
    "nearest_railroad_1": "最寄りの鉄道へ進む（所有者にはレンタル料の2倍）",
    "nearest_railroad_2": "最寄りの鉄道へ進む（所有者にはレンタル料の2倍）",
    "dividend": "銀行から配当$50",
    "goojf": "刑務所から釈放",
    "back_3": "3つ戻る",
    "go_to_jail": "刑務所へ行く",
    "general_repairs": "建物の修繕（家1軒$25、ホテル1軒$100）",
    "poor_tax_or_speeding": "スピード違反の罰金$15",
    "reading": "リーディング鉄道へ進む",
    "boardwalk": "ボードウォークへ進む",
    "chairman": "議長に選ばれる（各プレーヤーに$50支払う）",
    "building_loan": "建築ローンの満期（$150受け取る）",
    "bank_error": "銀行の誤り（$200受け取る）",
    "doctor": "医者の診察料$50",
    "sale_of_stock": "株の売却益",
    "holiday_fund": "休暇積立金の満期（$100受け取る）",
    "income_tax_refund": "所得税の還付$20",
    "birthday": "誕生日（各プレーヤーから$10受け取る）",
    "grand_opera": "オペラの初日（各プレーヤーから$50受け取る）",
    "life_insurance": "生命保険の満期$100",
    "hospital": "入院費$100",
    "school": "学費$50",
    "consultancy": "コンサルタント料$25受け取る",
    "street_repairs": "道路の修繕（家1軒$40、ホテル1軒$115）",
    "beauty_contest": "美人コンテスト2位（$10受け取る）",
    "inherit": "遺産相続$100",
}

# ---- rule titles by rule ID (RULES.md digest), shown with the engine's detail ----

RULE_TITLES: Final[dict[str, dict[str, str]]] = {
    "M.SETUP.2": {"en": "start order by rolling two dice", "ja": "手番順はサイコロ2個を振って決める"},
    "M.DICE.1": {"en": "a die off the board: both dice again", "ja": "盤外に出たサイコロ：2個とも振り直し"},
    "M.DICE.2": {"en": "a face that can't be read: both dice again", "ja": "目が読めない：2個とも振り直し"},
    "M.DICE.3": {"en": "doubles: resolve the square, then roll again",
                 "ja": "ゾロ目：止まったマスの処理後にもう一度振る"},
    "M.DICE.4": {"en": "third doubles: go to jail", "ja": "3回連続のゾロ目：刑務所へ"},
    "M.DICE.5": {"en": "sent to jail during doubles: the turn ends", "ja": "ゾロ目中に刑務所へ行ったら手番終了"},
    "M.GO.1": {"en": "$200 salary for passing GO", "ja": "GO通過で$200の給料"},
    "M.BUY.1": {"en": "buying an unowned deed at its price", "ja": "所有者のない土地は額面で購入できる"},
    "M.AUC.1": {"en": "auction: bids from $10 in $10 steps", "ja": "競売：$10から$10刻みで入札"},
    "M.AUC.2": {"en": "a winner who cannot pay voids the auction", "ja": "払えない落札者の競売は無効・やり直し"},
    "M.AUC.3": {"en": "equal bids: nearest in turn order first", "ja": "同額の入札は手番順の近い人が優先"},
    "M.AUC.4": {"en": "no negotiation during an auction", "ja": "競売中の交渉は禁止"},
    "M.RENT.1": {"en": "rent to the owner", "ja": "所有者にレンタル料を支払う"},
    "M.CARD.1": {"en": "draw the top card and follow it", "ja": "一番上のカードを引いて指示に従う"},
    "M.CARD.2": {"en": "Get Out of Jail Free is kept until used", "ja": "釈放カードは使うまで保持できる"},
    "M.TAX.1": {"en": "income tax", "ja": "所得税"},
    "M.JAIL.3": {"en": "leaving jail: $50, doubles or a card", "ja": "出所：$50支払い、ゾロ目、または釈放カード"},
    "M.JAIL.7": {"en": "after the third failed roll", "ja": "3回目の失敗後の扱い"},
    "M.BUILD.1": {
        "en": "build only on a whole unmortgaged group, between turns",
        "ja": "建築は抵当のない独占グループに、手番の合間にのみ",
    },
    "M.BUILD.2": {
        "en": "even rule: deeds of a group differ by at most one building",
        "ja": "均等建築ルール：グループ内の建物数の差は1軒まで",
    },
    "M.BUILD.3": {"en": "at most 4 houses, then one hotel", "ja": "家は4軒まで、その後ホテル1軒"},
    "M.BUILD.4": {"en": "the bank's 32 houses and 12 hotels", "ja": "銀行の家は32軒、ホテルは12軒"},
    "M.BUILD.5": {"en": "building declarations", "ja": "建築の宣言"},
    "M.BUILD.6": {"en": "shortage auction of buildings", "ja": "建物不足時の競売"},
    "M.BUILD.7": {"en": "buildings sell back at half cost, evenly", "ja": "建物は半額で均等に売却"},
    "M.BUILD.8": {"en": "selling a hotel: houses that may stay", "ja": "ホテル売却時に残せる家の数"},
    "M.BUILD.9": {"en": "several players selling in a shortage: in turn order",
                  "ja": "建物不足時に複数人が売却：手番順に処理"},
    "M.MORT.1": {"en": "mortgage an undeveloped deed", "ja": "建物のない土地を抵当に入れる"},
    "M.MORT.2": {"en": "lifting a mortgage costs mortgage + 10%", "ja": "抵当の解除は抵当額＋10％"},
    "M.MORT.3": {"en": "when mortgaging is allowed", "ja": "抵当に入れられる時機"},
    "M.MORT.4": {"en": "mortgaged deeds changing owner", "ja": "抵当中の土地の移転"},
    "M.TRADE.1": {"en": "trades between turns only", "ja": "交渉は手番の合間にのみ"},
    "M.TRADE.2": {"en": "what counts as a debt", "ja": "負債の定義"},
    "M.TRADE.3": {"en": "one-to-one trades, handed over on the spot", "ja": "交渉は1対1、その場で受け渡し"},
    "M.TRADE.4": {
        "en": "forbidden: loans, gifts, below-mortgage sales, buy-backs",
        "ja": "禁止：貸借、贈与、抵当額未満の売却、買い戻し",
    },
    "M.TRADE.5": {"en": "no sale while the group has buildings", "ja": "建物のあるグループの土地は売れない"},
    "M.BK.1": {"en": "provisional bankruptcy and rescue", "ja": "仮破産と救済"},
    "M.BK.6": {"en": "jail fee and destination rent", "ja": "刑務所の罰金と移動先のレンタル料"},
    "M.END.1": {"en": "the game is over", "ja": "ゲーム終了"},
    "M.END.2": {"en": "time game end signal", "ja": "時間制ゲームの終了合図"},
    "M.END.4": {"en": "ranking ties settled by dice", "ja": "同順位はサイコロで決める"},
    "M.PROC.1": {"en": "undo a traceable wrong move", "ja": "確実にたどれる誤りは取り消す"},
    "M.PROC.2": {"en": "referee decisions are final", "ja": "審判の裁定が最終"},
    "C.TABLE.1": {"en": "four players per table, three when needed", "ja": "1卓4人、必要なら3人"},
    "C.SETUP.1": {"en": "number tokens laid from a rolled vertex", "ja": "数字チップはサイコロで決めた頂点から配置"},
    "C.TIME.1": {"en": "qualifier timing: 8 min placement, 60 min play", "ja": "予選の時間：初期配置8分、本戦60分"},
    "C.TIME.2": {"en": "the end signal ends the game at once", "ja": "終了合図で即時終了"},
    "C.TIME.3": {"en": "a paused game's time is added back", "ja": "中断した時間は追加される"},
    "C.DICE.1": {"en": "a die out of the tray: both dice again", "ja": "トレイ外に出たサイコロ：2個とも振り直し"},
    "C.ROB.1": {"en": "the robber on a 7", "ja": "7で盗賊を移動"},
    "C.BANK.1": {"en": "resource shortage in the bank", "ja": "銀行の資源不足"},
    "C.TRADE.1": {"en": "trades only with the player whose turn it is", "ja": "交渉は手番のプレーヤーとのみ"},
    "C.WIN.1": {"en": "10 points win when declared on your own turn", "ja": "10点は自分の手番で宣言して勝利"},
    "C.SCORE.1": {"en": "winner 10 points, others at most 9", "ja": "勝者10点、他は最大9点"},
}

# ---- UI strings ----

UI: Final[dict[str, dict[str, str]]] = {
    "app": {"en": "Tableside", "ja": "テーブルサイド"},
    "hall": {"en": "Hall", "ja": "会場"},
    "dashboard": {"en": "Dashboard", "ja": "ダッシュボード"},
    "clerk": {"en": "Clerk console", "ja": "記録係コンソール"},
    "overlay": {"en": "Overlay", "ja": "オーバーレイ"},
    "language": {"en": "Language", "ja": "言語"},
    "tables": {"en": "Tables", "ja": "テーブル"},
    "table": {"en": "Table", "ja": "テーブル"},
    "no_tables": {"en": "No tables yet.", "ja": "テーブルはまだありません。"},
    "players": {"en": "Players", "ja": "プレーヤー"},
    "player": {"en": "Player", "ja": "プレーヤー"},
    "cash": {"en": "Cash", "ja": "現金"},
    "position": {"en": "Position", "ja": "位置"},
    "jail": {"en": "Jail", "ja": "刑務所"},
    "in_jail": {"en": "in jail", "ja": "服役中"},
    "jail_turn": {"en": "attempt", "ja": "回目"},
    "cards": {"en": "Cards", "ja": "カード"},
    "deeds": {"en": "Deeds", "ja": "権利書"},
    "bankrupt": {"en": "bankrupt", "ja": "破産"},
    "turn": {"en": "Turn", "ja": "手番"},
    "turn_no": {"en": "turn", "ja": "ターン"},
    "doubles": {"en": "doubles", "ja": "ゾロ目"},
    "phase": {"en": "Phase", "ja": "段階"},
    "phase_start_order": {"en": "start order", "ja": "手番決め"},
    "phase_pre_roll": {"en": "before the roll", "ja": "サイコロ前"},
    "phase_post_roll": {"en": "after the roll", "ja": "サイコロ後"},
    "phase_game_over": {"en": "game over", "ja": "ゲーム終了"},
    "pending": {"en": "Waiting for", "ja": "待機中の決定"},
    "nothing_pending": {"en": "nothing: play on", "ja": "なし：続行"},
    "last_roll": {"en": "Last roll", "ja": "直前の出目"},
    "no_roll": {"en": "no roll yet", "ja": "まだ振っていません"},
    "verdict_ok": {"en": "counts", "ja": "有効"},
    "verdict_reroll": {"en": "roll both again", "ja": "2個とも振り直し"},
    "verdict_unreadable": {"en": "roll both again", "ja": "2個とも振り直し"},
    "log": {"en": "Event log", "ja": "記録"},
    "cash_chart": {"en": "Cash over time", "ja": "現金の推移"},
    "bank": {"en": "Bank", "ja": "銀行"},
    "houses": {"en": "houses", "ja": "家"},
    "hotels": {"en": "hotels", "ja": "ホテル"},
    "hotel": {"en": "hotel", "ja": "ホテル"},
    "mortgaged": {"en": "mortgaged", "ja": "抵当"},
    "ranking": {"en": "Ranking", "ja": "順位"},
    "winner": {"en": "Winner", "ja": "勝者"},
    "camera": {"en": "Camera", "ja": "カメラ"},
    "live": {"en": "live", "ja": "ライブ"},
    "offline": {"en": "reconnecting…", "ja": "再接続中…"},
    "clock": {"en": "Clock", "ja": "時計"},
    "status": {"en": "Status", "ja": "状況"},
    # tournament hall and clock
    "round": {"en": "Round", "ja": "ラウンド"},
    "referee_called": {"en": "Referee called", "ja": "審判呼び出し"},
    "camera_lost": {"en": "Camera lost", "ja": "カメラ切断"},
    "camera_not_read": {"en": "Camera not read: calibrate", "ja": "カメラ未読取：要較正"},
    "time_up": {"en": "Time up", "ja": "時間切れ"},
    "placement_overdue": {"en": "Placement overdue", "ja": "配置時間超過"},
    "unit_offline": {"en": "Unit offline", "ja": "端末オフライン"},
    "paused": {"en": "Paused", "ja": "一時停止"},
    "clock_not_started": {"en": "Not started", "ja": "開始前"},
    "clock_placement": {"en": "Placement", "ja": "初期配置"},
    "clock_play": {"en": "Play", "ja": "対戦中"},
    "clock_paused": {"en": "Paused", "ja": "一時停止"},
    "clock_times_up": {"en": "Time up", "ja": "時間切れ"},
    "clock_ended": {"en": "Ended", "ja": "終了"},
    "sound_on": {"en": "Sound on", "ja": "音を有効にする"},
    "referee": {"en": "Referee clock", "ja": "審判時計"},
    "clock_start": {"en": "Start", "ja": "開始"},
    "clock_pause": {"en": "Referee call (pause)", "ja": "審判呼び出し(停止)"},
    "clock_resume": {"en": "Resume", "ja": "再開"},
    "clock_adjust": {"en": "Add/remove seconds", "ja": "秒を追加/削除"},
    "clock_end": {"en": "End signal", "ja": "終了合図"},
    "placement_done": {"en": "Settlement placed", "ja": "開拓地配置完了"},
    "settlement": {"en": "settlement", "ja": "開拓地"},
    "open_dashboard": {"en": "Dashboard", "ja": "ダッシュボード"},
    "open_clerk": {"en": "Clerk", "ja": "記録係"},
    "login": {"en": "Clerk login", "ja": "記録係ログイン"},
    "pin": {"en": "Clerk PIN", "ja": "記録係PIN"},
    "sign_in": {"en": "Sign in", "ja": "ログイン"},
    "sign_out": {"en": "Sign out", "ja": "ログアウト"},
    "wrong_pin": {"en": "Wrong PIN.", "ja": "PINが違います。"},
    # error pages (the API answers JSON instead)
    "error_400": {"en": "Bad request", "ja": "不正なリクエストです"},
    "error_403": {"en": "Not allowed", "ja": "許可されていません"},
    "error_404": {"en": "Not found", "ja": "見つかりません"},
    "error_405": {"en": "Not allowed here", "ja": "この操作はできません"},
    "error_other": {"en": "Something went wrong", "ja": "エラーが発生しました"},
    "error_back": {"en": "Back to the hall: every table", "ja": "ホールへ戻る（全テーブル）"},
    # Reasons an error page gives (refuse() below); the API answers the English one.
    "why_no_table": {"en": "no table {table!r}", "ja": "テーブル「{table}」はありません"},
    "why_no_event": {"en": "no event {event!r}", "ja": "イベント「{event}」はありません"},
    "why_event_named_twice": {"en": "more than one event is named {event!r}: give its id",
                              "ja": "「{event}」という名前のイベントが複数あります。IDで指定してください"},
    "why_csrf": {"en": "missing or wrong CSRF token (reload the page and try again)",
                 "ja": "フォームの確認用トークンがないか古くなっています（ページを再読み込みしてやり直してください）"},
    "spectator": {"en": "Spectators see the dashboard; the console needs the table's clerk PIN.",
                  "ja": "観戦者はダッシュボードを閲覧できます。コンソールにはテーブルの記録係PINが必要です。"},
    # console
    "decision": {"en": "Decision", "ja": "決定"},
    "buy": {"en": "Buy", "ja": "購入"},
    "decline": {"en": "Decline (auction)", "ja": "購入しない（競売へ）"},
    "auction": {"en": "Auction", "ja": "競売"},
    "bid": {"en": "Bid", "ja": "入札"},
    "pass_bid": {"en": "Pass", "ja": "パス"},
    "amount": {"en": "Amount", "ja": "金額"},
    "high_bid": {"en": "high bid", "ja": "最高入札"},
    "dice": {"en": "Dice", "ja": "サイコロ"},
    "roll": {"en": "Enter roll", "ja": "出目を入力"},
    "void_throw": {"en": "Void throw", "ja": "無効な投げ"},
    "card": {"en": "Card", "ja": "カード"},
    "draw_card": {"en": "Card drawn", "ja": "引いたカード"},
    "seeded_card": {"en": "(top of the deck)", "ja": "（山札の一番上）"},
    "pay_jail_fine": {"en": "Pay $50 fine", "ja": "罰金$50を支払う"},
    "use_jail_card": {"en": "Use jail card", "ja": "釈放カードを使う"},
    "pay_debt": {"en": "Pay debt", "ja": "負債を支払う"},
    "declare_bankruptcy": {"en": "Declare bankruptcy", "ja": "破産を宣言"},
    "choose_tax_flat": {"en": "Tax: flat $200", "ja": "税：$200"},
    "choose_tax_percent": {"en": "Tax: 10%", "ja": "税：10％"},
    "end_turn": {"en": "End turn", "ja": "手番終了"},
    "undo": {"en": "Undo", "ja": "取り消し"},
    "end_signal": {"en": "End signal", "ja": "終了合図"},
    "confirm_end_signal": {"en": "Give the time game's end signal?", "ja": "時間制ゲームの終了合図を出しますか？"},
    "buildings": {"en": "Build / sell", "ja": "建築／売却"},
    "even_rule": {
        "en": "Even rule (M.BUILD.2): within a group the most- and least-built deeds differ by at most one.",
        "ja": "均等建築ルール（M.BUILD.2）：グループ内で建物の最多と最少の差は1軒まで。",
    },
    "build": {"en": "Build", "ja": "建てる"},
    "per_house": {"en": "per house", "ja": "1軒あたり"},
    "build_hotel": {"en": "Hotel", "ja": "ホテル"},
    "sell": {"en": "Sell", "ja": "売る"},
    "pass_build": {"en": "Pass (no follow)", "ja": "追随しない"},
    "no_groups": {"en": "No complete colour group yet.", "ja": "独占グループはまだありません。"},
    "mortgages": {"en": "Mortgages", "ja": "抵当"},
    "mortgage": {"en": "Mortgage", "ja": "抵当に入れる"},
    "unmortgage": {"en": "Lift", "ja": "解除"},
    "trade": {"en": "Trade", "ja": "交渉"},
    "trade_from": {"en": "From", "ja": "出す人"},
    "trade_to": {"en": "To", "ja": "受ける人"},
    "gives": {"en": "gives", "ja": "渡す"},
    "gets": {"en": "gets", "ja": "受け取る"},
    "jail_cards": {"en": "jail cards", "ja": "釈放カード"},
    "nothing": {"en": "nothing", "ja": "なし"},
    "login_again": {"en": "Not logged in as this table's clerk (any more): reload the page and enter the PIN.",
                    "ja": "このテーブルの記録係としてログインしていません（ログインが切れました）。"
                          "ページを再読み込みしてPINを入力してください。"},
    # Why a player went to jail or left it (engine/tx.py send_to_jail, engine/turns.py LeftJail.how; M.JAIL.*).
    "jail_go_to_jail_square": {"en": "Go To Jail square", "ja": "「刑務所へ行く」のマス"},
    "jail_third_doubles": {"en": "third doubles", "ja": "3回連続のゾロ目"},
    "jail_doubles": {"en": "doubles", "ja": "ゾロ目"},
    "jail_fine": {"en": "paid the fine", "ja": "罰金を支払い"},
    "jail_card": {"en": "a Get Out of Jail Free card", "ja": "釈放カード"},
    "jail_third_roll": {"en": "after the third roll", "ja": "3回目の振りの後"},
    "check": {"en": "Check (JMA)", "ja": "確認（JMA）"},
    "propose": {"en": "Record trade", "ja": "交渉を記録"},
    "check_ok": {"en": "Allowed", "ja": "可"},
    "calibration": {"en": "Camera calibration", "ja": "カメラの較正"},
    "calibration_help": {
        "en": "Click the board's four corners in order: top-left, top-right, bottom-right, bottom-left, or let "
              "the camera find the board. The dashed line is where the calibration in use puts the board.",
        "ja": "盤の四隅を順にクリック：左上、右上、右下、左下。または盤を自動で探します。"
              "破線は使用中の較正での盤の位置です。",
    },
    "calibration_reset": {"en": "Start again", "ja": "やり直す"},
    "calibration_find": {"en": "Find the board", "ja": "盤を自動で探す"},
    "calibration_found": {"en": "Board found: check the four corners, then save them.",
                          "ja": "盤が見つかりました。四隅を確かめてから保存してください。"},
    "calibration_save": {"en": "Save corners", "ja": "四隅を保存"},
    "calibration_saved": {"en": "Corners saved.", "ja": "四隅を保存しました。"},
    "no_preview": {"en": "no camera picture", "ja": "カメラ映像なし"},
    "refused": {"en": "Refused", "ja": "却下"},
    "done": {"en": "Done", "ja": "完了"},
    "bank_name": {"en": "the bank", "ja": "銀行"},
    "go_salary": {"en": "salary", "ja": "給料"},
    "legal_now": {"en": "Allowed now", "ja": "いま可能"},
    "rule": {"en": "Rule", "ja": "ルール"},
    # tournament events (web/events.py)
    "events": {"en": "Events", "ja": "大会"},
    "event": {"en": "Event", "ja": "大会"},
    "new_event": {"en": "New event", "ja": "新しい大会"},
    "event_name": {"en": "Name", "ja": "大会名"},
    "game": {"en": "Game", "ja": "ゲーム"},
    "monopoly": {"en": "Monopoly", "ja": "モノポリー"},
    "catan": {"en": "Catan", "ja": "カタン"},
    "players_list": {"en": "Players (comma-separated)", "ja": "プレイヤー（カンマ区切り）"},
    "minutes": {"en": "Time limit (minutes)", "ja": "制限時間（分）"},
    "seed": {"en": "Seating seed", "ja": "座席の乱数シード"},
    "asset_lead_wins": {"en": "An asset lead counts as a win (M.END.5)", "ja": "資産首位を勝利とする（M.END.5）"},
    "create": {"en": "Create", "ja": "作成"},
    "no_events": {"en": "No events yet.", "ja": "大会はまだありません。"},
    "rounds": {"en": "Rounds", "ja": "ラウンド数"},
    "table_no": {"en": "Table", "ja": "卓"},
    "seat_round": {"en": "Seat the next round", "ja": "次のラウンドの座席を決める"},
    "result": {"en": "Result", "ja": "結果"},
    "enter_result": {"en": "Enter result", "ja": "結果を入力"},
    "correct_result": {"en": "Correct result", "ja": "結果を修正"},
    "save": {"en": "Save", "ja": "保存"},
    "place": {"en": "Place", "ja": "順位"},
    "assets": {"en": "Assets", "ja": "総資産"},
    "vp": {"en": "Victory points", "ja": "勝利点"},
    "recorded": {"en": "Recorded", "ja": "記録"},
    "tpoints": {"en": "Points", "ja": "ポイント"},
    "wins": {"en": "Wins", "ja": "勝利数"},
    "score": {"en": "Score", "ja": "得点"},
    "games": {"en": "Games", "ja": "試合数"},
    "places": {"en": "Places", "ja": "各順位"},
    "standings": {"en": "Standings", "ja": "順位表"},
    "no_winner_time": {"en": "No winner (ended by time)", "ja": "勝者なし（時間切れ）"},
    "from_table": {"en": "or take it from the finished game of table unit",
                   "ja": "または卓端末の終了したゲームから取得"},
    "results_csv": {"en": "Results (CSV)", "ja": "結果（CSV）"},
    "standings_csv": {"en": "Standings (CSV)", "ja": "順位表（CSV）"},
    "no_result": {"en": "no result yet", "ja": "結果未入力"},
    "organiser_login": {"en": "Organiser login", "ja": "主催者ログイン"},
    "organiser_pin": {"en": "Organiser PIN", "ja": "主催者PIN"},
    "organiser_unset": {"en": "No organiser PIN is set on this server, so events are read-only here. Start it with "
                               "--organiser-pin (or TABLESIDE_ORGANISER_PIN) to create events and enter results.",
                        "ja": "このサーバーには主催者PINが設定されていないため、大会は閲覧のみです。"
                              "大会の作成や結果の入力には --organiser-pin（または TABLESIDE_ORGANISER_PIN）"
                              "を付けて起動してください。"},
    "organiser_only": {"en": "Organisers sign in to create events, seat rounds and enter results.",
                       "ja": "大会の作成・座席決め・結果入力には主催者ログインが必要です。"},
    "catan_caps": {"en": "Recorded scores follow C.SCORE.1: the winner 10, everyone else at most 9.",
                   "ja": "記録得点はC.SCORE.1に従う：勝者は10点、他は最大9点。"},
}

# ---- event phrases: "{name}" fields are filled by the page's JS from the stored event payload ----

EVENTS: Final[dict[str, dict[str, str]]] = {
    "game_started": {"en": "Game started: {players}", "ja": "ゲーム開始：{players}"},
    "dice_rolled": {"en": "{player} rolled {a}+{b}{dbl}", "ja": "{player}の出目 {a}+{b}{dbl}"},
    "throw_voided": {"en": "Throw void ({reason}): roll both dice again",
                     "ja": "無効な投げ（{reason}）：2個とも振り直し"},
    "moved": {"en": "{player} moved to {square}", "ja": "{player}は{square}へ移動"},
    "cash": {"en": "{payer} paid {payee} ${amount} ({reason})",
             "ja": "{payer}が{payee}に${amount}を支払い（{reason}）"},
    "deed": {"en": "{deed} -> {owner}", "ja": "{deed} → {owner}"},
    "mortgage": {"en": "{deed} {what}", "ja": "{deed}：{what}"},
    "buildings": {"en": "{deed}: {what}", "ja": "{deed}：{what}"},
    "card_drawn": {"en": "{player} drew {card}", "ja": "{player}がカードを引いた：{card}"},
    "jail_card_returned": {"en": "{player} used {card}", "ja": "{player}が{card}を使用"},
    "jail_card_given": {"en": "{giver} gave {card} to {receiver}", "ja": "{giver}が{receiver}に{card}を渡した"},
    "sent_to_jail": {"en": "{player} sent to jail ({why})", "ja": "{player}は刑務所へ（{why}）"},
    "left_jail": {"en": "{player} left jail ({why})", "ja": "{player}は出所（{why}）"},
    "jail_roll_failed": {"en": "{player} stays in jail", "ja": "{player}は刑務所に残る"},
    "start_order": {"en": "Start order: {order}", "ja": "手番順：{order}"},
    "bankrupt": {"en": "{player} is bankrupt to {creditor}", "ja": "{player}は{creditor}に対して破産"},
    "game_ended": {"en": "Game over: {ranking}", "ja": "ゲーム終了：{ranking}"},
    "referee": {"en": "Referee set {changes}", "ja": "審判が設定：{changes}"},
    "undone": {"en": "Last command undone", "ja": "直前の操作を取り消し"},
    # M.TRADE.6: a trade is announced to everyone, what each side gave included.
    "traded": {"en": "Trade: {giver} gives {give}, {receiver} gives {get}",
               "ja": "交渉成立：{giver} → {receiver}：{give}／{receiver} → {giver}：{get}"},
    "build_declared": {"en": "{player} declares {count} on {deed}", "ja": "{player}が{deed}に{count}軒を宣言"},
    "end_signalled": {"en": "End signal: the last turn is {last_turn}", "ja": "終了合図：最終ターンは{last_turn}"},
}

# Why money moved, in Japanese: the keys of engine/describe.py MONEY_REASONS, whose patterns the pages match
# (web/static/common.js moneyReason) and whose named parts they fill in the page's language: {deed} a deed's
# name, {where} a deed's or colour group's, {card} a card's deck and title, {player}, {n}, {houses}, {hotels}.
MONEY_JA: Final[dict[str, str]] = {
    "salary": "給料",
    "bought": "{deed}を購入",
    "rent_dice": "{deed}のレンタル料（サイコロの目の{n}倍）",
    "rent": "{deed}のレンタル料",
    "auction": "{deed}を競売で落札",
    "income_tax_flat": "所得税（定額）",
    "income_tax_percent": "所得税（総資産の定率）",
    "income_tax": "所得税",
    "luxury_tax": "物品税",
    "card_repairs": "{card}（家{houses}軒・ホテル{hotels}軒）",
    "card": "{card}",
    "mortgage_fee": "抵当中の{deed}の手数料10%",
    "mortgaged": "{deed}を抵当に入れた",
    "unmortgaged": "{deed}の抵当を解除",
    "hotel_built": "{deed}にホテルを建設",
    "houses_built": "{deed}に家{n}軒を建設",
    "buildings_sold": "{where}の建物を銀行に売却",
    "trade": "{player}との交渉",
    "jail_fine": "罰金",
    "jail_third": "3回目に失敗した後の罰金",
    "jail_fee_taken_over": "{player}の罰金の肩代わり",
    "bankruptcy": "破産",
    "rescue_void": "救済の取引を無効に",
}


def money_bundle(lang: str) -> dict[str, Any]:
    """The money reasons' patterns (as JavaScript reads named groups) and their words in `lang`."""
    return {
        "patterns": [[key, pattern.replace("(?P<", "(?<")] for key, pattern, _ in MONEY_REASONS],
        "words": {key: MONEY_JA[key] if lang == "ja" else words for key, _, words in MONEY_REASONS},
    }


# The fields a referee may set (engine/game.py _validate_referee), as the log names them in Japanese
# (web/static/common.js refereeText; engine/describe.py words them in English).
REFEREE_FIELDS_JA: Final[dict[str, str]] = {
    "cash": "現金", "position": "位置", "in_jail": "刑務所に", "jail_turns": "刑務所でのターン数",
    "jail_cards": "釈放カード", "owner": "所有者", "mortgaged": "抵当", "houses": "家", "hotel": "ホテル",
    "turn": "手番", "yes": "はい", "no": "いいえ",
}


# The camera's status in Japanese, by its kind (hardware/tablecamera.py CameraStatus.kind), after the camera's name
# (common.js cameraText): {reader} the dice reader, {detail} the cause in the software's own words. English
# pages show the service's message as it is.
CAMERA_JA: Final[dict[str, str]] = {
    "none": "カメラなし：出目は記録係が入力します",
    "reading": "読み取り中（読み取り器：{reader}）",
    "cant_open": "開けません（{detail}）。再試行中です。その間は出目を手で入力してください",
    "lost": "切れました（{detail}）。再試行中です。その間は出目を手で入力してください",
    "back": "復帰しました",
    "failed": "不具合（{detail}）",
    "ended": "映像が終わりました。出目を手で入力してください",
    "misfit": "カメラを読めません：{detail}。記録係コンソールで盤の四隅をクリックしてください",
    "not_recorded": "投げを記録できませんでした（{detail}）",
    "no_reader": "読み取り器を用意できません（{detail}）",
}


# The gist of a reason in Japanese, the English reason after it: the pages take the first key the reason
# contains (web/static/common.js reasonText), so the specific come before the general ("unreadable" is in
# most of the reader's refusals: "die 2 unreadable: cocked: ...").
REASONS_JA: Final[dict[str, str]] = {
    "no dice found": "サイコロが見つからない",
    "off the board": "盤外",
    "cocked": "サイコロが傾いている",
    "stacked": "サイコロが重なっている",
    "motion blur": "動いていてぶれている",
    "too soft": "ピントが甘く傾きを判定できない（カメラのピントを合わせるか、近づけてください）",  # vision/focus.py
    "partly covered": "一部が隠れている",
    "side face": "側面が見えている",
    "expected": "個数が違う",
    "low confidence": "読み取りが不確か",
    "not sure of its value": "読み取りが不確か",  # a die the net sees but cannot read (vision/netcheck.py)
    "did not settle": "止まらなかった",
    "no die's top face": "サイコロの上面が見えない",
    "the net": "読み取りが食い違う",  # "the pips read 5, the net 6": two readers disagree (vision/netcheck.py)
    "pip": "目の並びが読めない",
    "unreadable": "読めない",
    "clerk": "係員による無効",
}


def t(key: str, lang: str) -> str:
    """A UI string; the key itself when it is missing, so a gap shows instead of breaking the page."""
    entry = UI.get(key)
    if entry is None:
        return key
    return entry.get(lang) or entry["en"]


REASON_ATTR: Final = "tableside_reason"  # where refuse() leaves its key and parameters on the exception


def refuse(code: int, key: str, *, english: str | None = None, **params: object) -> NoReturn:
    """abort(code) with a reason the error page shows in the reader's language (UI[key], formatted with
    `params`); the API's JSON and logs keep the English, or `english` where it says more (a list of ids)."""
    from werkzeug.exceptions import default_exceptions

    exc = default_exceptions[code](description=english or t(key, "en").format(**params))
    setattr(exc, REASON_ATTR, (key, params))
    raise exc


def reason(exc: BaseException, lang: str) -> str | None:
    """The reason refuse() gave `exc`, in `lang`; None for any other exception."""
    found = getattr(exc, REASON_ATTR, None)
    if found is None:
        return None
    key, params = found
    return t(key, lang).format(**params)


def pick_lang(cookie: str | None, accept_language: str | None, asked: str | None = None) -> str:
    """The page's own `?lang=` wins (a hall screen or an OBS source fixed to one language, whatever the browser
    it runs in prefers); then the switch (cookie); else the first supported language of Accept-Language by its
    q-value. An unknown code is passed over, not an error: a typo in a link still shows the page."""
    for chosen in (asked, cookie):
        if chosen in LANGS:
            return str(chosen)
    best, best_q = DEFAULT_LANG, -1.0
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        code = tag.strip().lower().split("-")[0]
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if code in LANGS and q > best_q:
            best, best_q = code, q
    return best


def square_name(index: int, lang: str) -> str:
    if lang == "ja":
        return SQUARE_NAMES_JA[index]
    return SQUARES[index].name


def deed_name(deed_id: str, lang: str) -> str:
    deed = DEEDS.get(deed_id)
    if deed is None:
        return deed_id
    return square_name(deed.index, lang)


def rule_message(rule: str | None, detail: str, lang: str) -> str:
    """`M.BUILD.2: even rule … — uneven build on …`: the rule ID always shown, its title translated."""
    if not rule:
        return detail
    title = RULE_TITLES.get(rule, {}).get(lang)
    if title is None:
        return f"{rule}: {detail}"
    return f"{rule}: {title} — {detail}"


def board_data(lang: str) -> dict[str, Any]:
    """Everything the pages' JS needs to draw and name the board, in one language."""
    squares = [
        {"index": s.index, "type": s.type, "name": square_name(s.index, lang), "deed": s.deed, "group": s.group}
        for s in SQUARES
    ]
    deeds = {
        d.id: {
            "name": deed_name(d.id, lang),
            "index": d.index,
            "kind": d.kind,
            "group": d.group,
            "price": d.price,
            "mortgage": d.mortgage,
            "house_cost": d.house_cost,
            "rent": list(d.rent),
        }
        for d in DEEDS.values()
    }
    return {
        "squares": squares,
        "deeds": deeds,
        "groups": {g: list(members) for g, members in GROUPS.items()},
        "group_names": {g: names.get(lang, names["en"]) for g, names in GROUP_NAMES.items()},
        "colours": GROUP_COLOURS,
        "decks": {d: names.get(lang, names["en"]) for d, names in DECK_NAMES.items()},
    }


def card_title(card_key: str, lang: str, english_text: str) -> str:
    _, _, cid = card_key.partition(":")
    if lang == "ja":
        return CARD_TITLES_JA.get(cid, english_text)
    return english_text


def bundle(lang: str) -> dict[str, Any]:
    """The strings the pages' JS needs: UI, event phrases, rule titles and reasons, in one language."""
    return {
        "lang": lang,
        "ui": {k: v.get(lang, v["en"]) for k, v in UI.items()},
        "events": {k: v.get(lang, v["en"]) for k, v in EVENTS.items()},
        "rules": {k: v.get(lang, v["en"]) for k, v in RULE_TITLES.items()},
        "reasons": dict(REASONS_JA) if lang == "ja" else {},
        "money": money_bundle(lang),
        "camera": dict(CAMERA_JA) if lang == "ja" else {},
        "referee": dict(REFEREE_FIELDS_JA) if lang == "ja" else {},
    }
