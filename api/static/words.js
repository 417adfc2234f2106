// What players call the rules options (the API's keys stay in a "details" disclosure for the curious).
// A key names the option in every game that has it; "game.key" where two games mean different things.

export const OPTION_NAMES = {
  "cau-robat.players": ["Number of players", "Play with 3 to 5 players, or allow 2 to 6."],
  dealerRotation: ["Who deals next", "The deal passes to the dealer's right (the next player) or to the dealer's left."],
  dupFix: ["Pairs on the table at the deal", "How the table was fixed when two cards of a rank came up: one card replaced, or everything dealt again."],
  requireAnnouncement: ["Calls must be said aloud", "A Cau, Recau or Contracau counts only when the player says it."],
  runDirection: ["Runs go", "After a match, the run of following ranks is taken up and down, only up, or only down."],
  directPileCapture: ["Take a pile directly", "A card matching the top of another player's pile takes that pile, even with nothing matched on the table."],
  pileOrder: ["Order of the cards in a pile", "Worked out from the plays, or written down card by card."],
  chainMode: ["When a Cau is settled", "The last caller takes it all, or each call takes at once and the next caller takes it back."],
  anyoneMayCall: ["Anyone may call", "Any player not yet in an open Cau may join it out of turn."],
  lastPlayClears: ["The last card clears the table", "Clearing the table with the hand's last card earns the table-clearing payments."],
  leftovers: ["Cards left on the table at the end", "They go to nobody, or to the last player who took cards."],
  deck: ["Deck", "Which cards the game uses."],
  maxPlayers: ["Most players at the table", "How many players may sit in."],
  dealerMode: ["Who deals", "One player deals as long as they like, the deal passes on, or a croupier who does not play deals."],
  start: ["How a hand starts", "Two cards each, or five or three each of which a player keeps one and gets a new card."],
  secondCardFrom: ["Where the second card comes from", "From the cards given back, shuffled, or from the stock they are shuffled into."],
  openSix: ["Six open cards", "Six cards lie face up in the middle, belonging to nobody (Kabú con descartes)."],
  solvency: ["Who counts as broke", "Broke when a player holds fewer chips than they owe, or when chips plus winnings minus debts fall below zero."],
  insolventCollects: ["A broke player still collects", "A player who cannot pay still takes what others owe them."],
  edition: ["Edition of the rules", "The first edition, or the second edition's whole set of changes (2–4 players)."],
  swapAny: ["Swap any two cards", "An 11 or 12 may swap any two cards of two players, not only one's own."],
  lockCaller: ["The caller's cards are safe", "After CABO, nobody may swap with the player who called it."],
  wrongMultiPenalty: ["A wrong multiple swap", "When the cards shown do not match: the new card is thrown away, or joins the row as an extra card."],
  "el-roby.players": ["Number of players", "Play with 4 to 8 players, or allow 2 to 8."],
  entry: ["Money each player puts in the pot", "Paid at the start; the last player in takes the pot."],
  stake: ["Money for a Roby", "What each other player pays the one who makes Roby (goes out), each hand."],
  dealerDrawOrder: ["Drawing for the first deal", "The highest card deals first, by value or by K > Q > J > 10 among tens (not recorded)."],
  setsDistinctSuits: ["Sets of different suits", "A set holds at most one card of each suit."],
  aceWrap: ["Runs go round the ace", "A run may go round the corner (K-A-2)."],
  discardCheck: ["Which melds a discard must not fit", "Other players' melds, or every meld on the table."],
  elevenCardSource: ["The 11-card Roby", "Going out with 11 cards by laying off needs a draw from the stock, or from either pile."],
  noImmediateRediscard: ["No throwing back the card just taken", "A card taken from the discard pile may not be thrown away in the same turn."],
  stockOut: ["When the stock runs out", "The discards but the top card become a new stock, or the hand does not count."],
  limitCheck: ["When the 99 limit is checked", "On the hand kept after the discard, or before it."],
  limitScope: ["What the 99 limit applies to", "Every turn with a new meld, only the player's first meld, or turns with lay-offs too."],
  rebuyDenominator: ["Dividing the pot for a re-buy", "By the players still in, or counting those who re-buy too."],
  rebuyRounding: ["Rounding the re-buy price", "Up or down to whole money."],
  trumpCard: ["The trump card after the deal", "It goes back into the stock, or lies face up under it and is drawn last."],
  discardFaceUp: ["Discards face up", "Cards thrown away are shown (and must be written down)."],
  tiraInterruptsTira: ["A tira may interrupt a tira", "Four of a suit may be thrown in again after another tira in the same trick."],
  eggs: ["Eggs (60–60)", "A 60–60 deal counts for nothing, or doubles the next deal's loss points."],
  correctionWindow: ["Time to correct after the end", "Minutes after the match ends in which scores may still be corrected or disputed. Leave it blank for no limit."],
  "kabu.end": ["When the game ends", "When a player cannot pay, or at a time agreed beforehand (then broke players buy chips or leave)."],
  "cau-robat.wins": ["Hands to win the game", "The number of hand wins that ends the game."],
  "cau-robat.tie": ["Two players reach it together", "They share the game, or play on until one leads alone."],
};

/** [name, sentence] of an option, or null when the catalog does not know it. */
export function optionWords(game, key) {
  return OPTION_NAMES[`${game}.${key}`] || OPTION_NAMES[key] || null;
}

/** What a player calls an option's value; the value itself stays the API's. */
export const VALUE_NAMES = {
  "players.3-5": "3 to 5", "players.2-6": "2 to 6", "players.4-8": "4 to 8", "players.2-8": "2 to 8",
  "dealerRotation.right": "to the right", "dealerRotation.left": "to the left",
  "dupFix.replace": "extra cards replaced", "dupFix.redealAll": "dealt again",
  "runDirection.both": "up and down", "runDirection.up": "only up", "runDirection.down": "only down",
  "pileOrder.deterministic": "worked out from the plays", "pileOrder.recorded": "written card by card",
  "chainMode.deferred": "the last caller takes it all", "chainMode.immediate": "each call takes at once",
  "leftovers.nobody": "nobody", "leftovers.lastCapturer": "the last player who took cards",
  "deck.french40": "French, A to 10 (40 cards)", "deck.full52": "French, whole pack (52)", "deck.spanish40": "Spanish (40)",
  "dealerMode.keep": "one dealer keeps the deal", "dealerMode.rotate": "the deal passes on", "dealerMode.croupier": "a croupier who does not play",
  "start.direct": "two cards each", "start.choose5": "keep one of five", "start.choose3": "keep one of three",
  "secondCardFrom.returned": "from the cards given back", "secondCardFrom.stock": "from the stock",
  "solvency.gross": "fewer chips than owed", "solvency.net": "chips plus winnings minus debts below zero",
  "edition.1": "first edition", "edition.2": "second edition",
  "wrongMultiPenalty.discard": "the new card is thrown away", "wrongMultiPenalty.keep": "the new card joins the row",
  "dealerDrawOrder.value": "by value", "dealerDrawOrder.rank": "by rank (K > Q > J > 10)",
  "discardCheck.othersMelds": "other players' melds", "discardCheck.allMelds": "every meld",
  "elevenCardSource.stockOnly": "only from the stock", "elevenCardSource.either": "from either pile",
  "stockOut.reshuffle": "the discards make a new stock", "stockOut.voidHand": "the hand does not count",
  "limitCheck.afterDiscard": "after the discard", "limitCheck.beforeDiscard": "before the discard",
  "limitScope.everyMeld": "every new meld", "limitScope.firstExposure": "the first meld only", "limitScope.alsoLayoffs": "lay-offs too",
  "rebuyDenominator.remaining": "the players still in", "rebuyDenominator.includeRebuyers": "those plus the re-buyers",
  "rebuyRounding.up": "up", "rebuyRounding.down": "down",
  "trumpCard.returned": "goes back into the stock", "trumpCard.bottomFaceUp": "face up under the stock, drawn last",
  "eggs.none": "count for nothing", "eggs.doubleNext": "double the next deal",
  "end.insolvency": "when a player cannot pay", "end.time": "at an agreed time",
  "tie.share": "they share the game", "tie.playOn": "play on until one leads alone",
};

/** A value's words, or the value itself. */
export function valueWords(key, value) {
  return VALUE_NAMES[`${key}.${value}`] || String(value);
}
