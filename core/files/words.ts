/**
 * The word lists of the `gfycat` / `random-words` name format
 * (`filesRandomWordsNumAdjectives` adjectives and one animal).
 */

/** Adjectives, lowercase ASCII. */
export const ADJECTIVES =
  `able agile amber ancient arctic ardent azure bold brave breezy bright brisk
calm candid cheerful clever cosmic cozy crimson curious daring dazzling deft eager earnest electric
elegant fancy fearless fierce fluffy fond frosty gentle giant gleaming golden graceful grand happy
hardy hazy hidden honest humble icy jolly jovial keen kind lively lucky lunar mellow merry mighty
misty modest nimble noble odd patient peaceful plucky polite proud quick quiet radiant rapid rare
rosy royal rustic scarlet serene shiny silent silver sleek sly smooth snowy solar speedy spry stark
steady stormy sturdy sunny swift tender tidy tiny tranquil upbeat valiant vast velvet vivid warm
wild wise witty young zealous zesty`.split(/\s+/);

/** Animals, lowercase ASCII. */
export const ANIMALS = `albatross alpaca ant antelope armadillo badger bat bear beaver bison boar
buffalo camel capybara caribou cat cheetah chipmunk cobra cougar coyote crab crane crow deer dingo
dolphin donkey dove duck eagle eel elephant elk falcon ferret finch flamingo fox frog gazelle gecko
gerbil giraffe goat goose gorilla hamster hare hawk hedgehog heron hippo horse hyena ibis iguana
jackal jaguar kangaroo kiwi koala lemur leopard lion lizard llama lobster lynx magpie marmot meerkat
mink mole moose moth mouse newt ocelot octopus okapi orca osprey ostrich otter owl panda panther
parrot pelican penguin pigeon puffin puma quail rabbit raccoon raven reindeer rhino robin salmon
seal shark sheep sloth snail sparrow squid squirrel stork swan tapir tiger toad toucan turtle viper
vulture walrus weasel whale wolf wombat yak zebra`.split(/\s+/);
