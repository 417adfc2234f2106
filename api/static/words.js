// What players call the rules options (the API's keys stay in a "details" disclosure for the curious).
// A key names the option in every game that has it; "game.key" where two games mean different things.
// The keys stay the API's; the words are the reader's language (say.js).
import { t } from "./say.js";

export const OPTION_NAMES = {
  "cau-robat.players": [t("Number of players"), t("Play with 3 to 5 players, or allow 2 to 6.")],
  dealerRotation: [t("Who deals next"), t("The deal passes to the dealer's right (the next player) or to the dealer's left.")],
  dupFix: [t("Pairs on the table at the deal"), t("How the table was fixed when two cards of a rank came up: one card replaced, or everything dealt again.")],
  requireAnnouncement: [t("Calls must be said aloud"), t("A Cau, Recau or Contracau counts only when the player says it.")],
  runDirection: [t("Runs go"), t("After a match, the run of following ranks is taken up and down, only up, or only down.")],
  directPileCapture: [t("Take a pile directly"), t("A card matching the top of another player's pile takes that pile, even with nothing matched on the table.")],
  pileOrder: [t("Order of the cards in a pile"), t("Worked out from the plays, or written down card by card.")],
  chainMode: [t("When a Cau is settled"), t("The last caller takes it all, or each call takes at once and the next caller takes it back.")],
  anyoneMayCall: [t("Anyone may call"), t("Any player not yet in an open Cau may join it out of turn.")],
  lastPlayClears: [t("The last card clears the table"), t("Clearing the table with the hand's last card earns the table-clearing payments.")],
  leftovers: [t("Cards left on the table at the end"), t("They go to nobody, or to the last player who took cards.")],
  deck: [t("Deck"), t("Which cards the game uses.")],
  maxPlayers: [t("Most players at the table"), t("How many players may sit in.")],
  dealerMode: [t("Who deals"), t("One player deals as long as they like, the deal passes on, or a croupier who does not play deals.")],
  start: [t("How a hand starts"), t("Two cards each, or five or three each of which a player keeps one and gets a new card.")],
  secondCardFrom: [t("Where the second card comes from"), t("From the cards given back, shuffled, or from the stock they are shuffled into.")],
  openSix: [t("Six open cards"), t("Six cards lie face up in the middle, belonging to nobody (Kabú con descartes).")],
  solvency: [t("Who counts as broke"), t("Broke when a player holds fewer chips than they owe, or when chips plus winnings minus debts fall below zero.")],
  insolventCollects: [t("A broke player still collects"), t("A player who cannot pay still takes what others owe them.")],
  edition: [t("Edition of the rules"), t("The first edition, or the second edition's whole set of changes (2–4 players).")],
  swapAny: [t("Swap any two cards"), t("An 11 or 12 may swap any two cards of two players, not only one's own.")],
  lockCaller: [t("The caller's cards are safe"), t("After CABO, nobody may swap with the player who called it.")],
  wrongMultiPenalty: [t("A wrong multiple swap"), t("When the cards shown do not match: the new card is thrown away, or joins the row as an extra card.")],
  "el-roby.players": [t("Number of players"), t("Play with 4 to 8 players, or allow 2 to 8.")],
  entry: [t("Money each player puts in the pot"), t("Paid at the start; the last player in takes the pot.")],
  stake: [t("Money for a Roby"), t("What each other player pays the one who makes Roby (goes out), each hand.")],
  dealerDrawOrder: [t("Drawing for the first deal"), t("The highest card deals first, by value or by K > Q > J > 10 among tens (not recorded).")],
  setsDistinctSuits: [t("Sets of different suits"), t("A set holds at most one card of each suit.")],
  aceWrap: [t("Runs go round the ace"), t("A run may go round the corner (K-A-2).")],
  discardCheck: [t("Which melds a discard must not fit"), t("Other players' melds, or every meld on the table.")],
  elevenCardSource: [t("The 11-card Roby"), t("Going out with 11 cards by laying off needs a draw from the stock, or from either pile.")],
  noImmediateRediscard: [t("No throwing back the card just taken"), t("A card taken from the discard pile may not be thrown away in the same turn.")],
  stockOut: [t("When the stock runs out"), t("The discards but the top card become a new stock, or the hand does not count.")],
  limitCheck: [t("When the 99 limit is checked"), t("On the hand kept after the discard, or before it.")],
  limitScope: [t("What the 99 limit applies to"), t("Every turn with a new meld, only the player's first meld, or turns with lay-offs too.")],
  rebuyDenominator: [t("Dividing the pot for a re-buy"), t("By the players still in, or counting those who re-buy too.")],
  rebuyRounding: [t("Rounding the re-buy price"), t("Up or down to whole money.")],
  trumpCard: [t("The trump card after the deal"), t("It goes back into the stock, or lies face up under it and is drawn last.")],
  discardFaceUp: [t("Discards face up"), t("Cards thrown away are shown (and must be written down).")],
  tiraInterruptsTira: [t("A tira may interrupt a tira"), t("Four of a suit may be thrown in again after another tira in the same trick.")],
  eggs: [t("Eggs (60–60)"), t("A 60–60 deal counts for nothing, or doubles the next deal's loss points.")],
  correctionWindow: [t("Time to correct after the end"), t("Minutes after the match ends in which scores may still be corrected or disputed. Leave it blank for no limit.")],
  "kabu.end": [t("When the game ends"), t("When a player cannot pay, or at a time agreed beforehand (then broke players buy chips or leave).")],
  "cau-robat.wins": [t("Hands to win the game"), t("The number of hand wins that ends the game.")],
  "cau-robat.tie": [t("Two players reach it together"), t("They share the game, or play on until one leads alone.")],
};

/** [name, sentence] of an option, or null when the catalog does not know it. */
export function optionWords(game, key) {
  return OPTION_NAMES[`${game}.${key}`] || OPTION_NAMES[key] || null;
}

/** What a player calls an option's value; the value itself stays the API's. */
export const VALUE_NAMES = {
  "players.3-5": t("3 to 5"), "players.2-6": t("2 to 6"), "players.4-8": t("4 to 8"), "players.2-8": t("2 to 8"),
  "dealerRotation.right": t("to the right"), "dealerRotation.left": t("to the left"),
  "dupFix.replace": t("extra cards replaced"), "dupFix.redealAll": t("dealt again"),
  "runDirection.both": t("up and down"), "runDirection.up": t("only up"), "runDirection.down": t("only down"),
  "pileOrder.deterministic": t("worked out from the plays"), "pileOrder.recorded": t("written card by card"),
  "chainMode.deferred": t("the last caller takes it all"), "chainMode.immediate": t("each call takes at once"),
  "leftovers.nobody": t("nobody"), "leftovers.lastCapturer": t("the last player who took cards"),
  "deck.french40": t("French, A to 10 (40 cards)"), "deck.full52": t("French, whole pack (52)"), "deck.spanish40": t("Spanish (40)"),
  "dealerMode.keep": t("one dealer keeps the deal"), "dealerMode.rotate": t("the deal passes on"), "dealerMode.croupier": t("a croupier who does not play"),
  "start.direct": t("two cards each"), "start.choose5": t("keep one of five"), "start.choose3": t("keep one of three"),
  "secondCardFrom.returned": t("from the cards given back"), "secondCardFrom.stock": t("from the stock"),
  "solvency.gross": t("fewer chips than owed"), "solvency.net": t("chips plus winnings minus debts below zero"),
  "edition.1": t("first edition"), "edition.2": t("second edition"),
  "wrongMultiPenalty.discard": t("the new card is thrown away"), "wrongMultiPenalty.keep": t("the new card joins the row"),
  "dealerDrawOrder.value": t("by value"), "dealerDrawOrder.rank": t("by rank (K > Q > J > 10)"),
  "discardCheck.othersMelds": t("other players' melds"), "discardCheck.allMelds": t("every meld"),
  "elevenCardSource.stockOnly": t("only from the stock"), "elevenCardSource.either": t("from either pile"),
  "stockOut.reshuffle": t("the discards make a new stock"), "stockOut.voidHand": t("the hand does not count"),
  "limitCheck.afterDiscard": t("after the discard"), "limitCheck.beforeDiscard": t("before the discard"),
  "limitScope.everyMeld": t("every new meld"), "limitScope.firstExposure": t("the first meld only"), "limitScope.alsoLayoffs": t("lay-offs too"),
  "rebuyDenominator.remaining": t("the players still in"), "rebuyDenominator.includeRebuyers": t("those plus the re-buyers"),
  "rebuyRounding.up": t("up"), "rebuyRounding.down": t("down"),
  "trumpCard.returned": t("goes back into the stock"), "trumpCard.bottomFaceUp": t("face up under the stock, drawn last"),
  "eggs.none": t("count for nothing"), "eggs.doubleNext": t("double the next deal"),
  "end.insolvency": t("when a player cannot pay"), "end.time": t("at an agreed time"),
  "tie.share": t("they share the game"), "tie.playOn": t("play on until one leads alone"),
};

/** A value's words, or the value itself. */
export function valueWords(key, value) {
  return VALUE_NAMES[`${key}.${value}`] || String(value);
}
